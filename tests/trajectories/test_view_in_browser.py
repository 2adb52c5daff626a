"""The run view in a real browser (issue 17, item 6): headless Chromium from Debian's
packages, driven by Playwright. Sorting by a column orders the rows, filtering counts
them, a large run is paginated and its transcripts live on pages of their own, and the
page's script raises no error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.tasks.model import write_tasks
from envfactory_mcp.trajectories.view import EPISODES_PER_PAGE, ROWS_PER_PAGE, write_view

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is in the test extras: pip install -e '.[test]'"
)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no Chromium here: apt-get install chromium (Debian's package; .ci/run installs it)",
    ),
]
EPISODES = 250  # more than one transcript page and more than two table pages


@pytest.fixture(scope="module")
def big_run(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real oracle run of 5 tasks, its records repeated as trials 0-49 with rewards and
    terminations varied, so the run has 250 episodes of mixed outcome."""
    root = tmp_path_factory.mktemp("browser")
    tasks = retail_tasks(5, seed=3)
    write_tasks(tasks, root / "tasks.jsonl")
    config = RolloutConfig(envs=["retail"], tasks_path=str(root / "tasks.jsonl"), servers_dir=str(SERVERS_DIR),
                           transport="memory", agent="oracle")  # fmt: skip
    anyio.run(rollout, config, root / "run")
    path = root / "run" / "trajectories.jsonl"
    base = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    lines = []
    for trial in range(EPISODES // len(base)):
        for k, record in enumerate(base):
            copy = dict(record, trial=trial)
            if (trial + k) % 3 == 0:  # a third fail, with rewards spread over (0, 1)
                copy["reward"] = round(((trial * 7 + k) % 10) / 10, 1)
                copy["termination"] = "max_steps"
            lines.append(json.dumps(copy))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / "run"


def test_sorting_filtering_and_pages_work_in_chromium(big_run: Path, tmp_path: Path):
    out = write_view(big_run, tmp_path / "view" / "report.html")
    chunks = sorted(p.name for p in out.parent.iterdir() if p.name != "report.html")
    assert chunks == [f"report-episodes-{k}.html" for k in range(1, EPISODES // EPISODES_PER_PAGE + 2)]
    records = [json.loads(line) for line in (big_run / "trajectories.jsonl").read_text().splitlines()]
    failures = sum(1 for r in records if r["reward"] < 1.0)
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(out.as_uri())
        visible = "#episodes tbody tr:not([hidden])"
        assert page.locator(visible).count() == ROWS_PER_PAGE
        assert page.inner_text("#count") == str(EPISODES) and page.inner_text("#page") == "page 1 of 3"
        # Sort by reward: ascending, then descending on a second click.
        page.click("#episodes thead th:nth-child(4)")
        rewards = [
            float(v)
            for v in page.locator(f"{visible} td:nth-child(4)").evaluate_all("cs => cs.map(c => c.dataset.v)")
        ]
        assert rewards == sorted(rewards) and rewards[0] == min(r["reward"] for r in records)
        page.click("#episodes thead th:nth-child(4)")
        rewards = [
            float(v)
            for v in page.locator(f"{visible} td:nth-child(4)").evaluate_all("cs => cs.map(c => c.dataset.v)")
        ]
        assert rewards == sorted(rewards, reverse=True) and rewards[0] == 1.0
        # Filter: the count and the pages follow.
        page.select_option("#f-outcome", "success")
        successes = EPISODES - failures
        assert page.inner_text("#count") == str(successes) and successes > ROWS_PER_PAGE
        page.click("#next")
        assert page.inner_text("#page") == "page 2 of 2"
        assert page.locator(visible).count() == successes - ROWS_PER_PAGE
        page.select_option("#f-outcome", "failure")
        assert page.inner_text("#count") == str(failures) and page.inner_text("#page") == "page 1 of 1"
        assert page.locator(visible).count() == failures
        assert all(
            o == "failure" for o in page.locator(visible).evaluate_all("rs => rs.map(r => r.dataset.outcome)")
        )
        # A row's task link opens its transcript on its own page.
        link = page.locator(f"{visible} td:first-child a").first
        target = link.get_attribute("href")
        assert target is not None and target.startswith("report-episodes-")
        link.click()
        page.wait_for_load_state()
        anchor = target.split("#")[1]
        assert page.locator(f"details#{anchor}").get_attribute("open") is not None
        browser.close()
    assert errors == []
    assert out.stat().st_size < 1_000_000  # the main page does not grow with the transcripts
