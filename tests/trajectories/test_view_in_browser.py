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
from envfactory_mcp.trajectories.pages import write_view
from envfactory_mcp.trajectories.view import EPISODES_PER_PAGE, ROWS_PER_PAGE

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


# JS: decode a PNG (base64) in a canvas and describe its pixels: how many distinct
# colours, the share of white, and whether each given colour (hex) occurs.
_PIXELS = """async ([b64, wanted]) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + b64;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d'); g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  const seen = new Set(); let white = 0;
  for (let i = 0; i < d.length; i += 4) {
    const hex = '#' + [d[i], d[i + 1], d[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join('');
    seen.add(hex); if (hex === '#ffffff') white += 1;
  }
  return {width: c.width, height: c.height, colours: seen.size, white: white / (d.length / 4),
          found: wanted.map((w) => seen.has(w))};
}"""


def test_a_two_run_comparison_in_chromium_has_its_columns_and_charts(scripted_runs, tmp_path: Path):
    import base64

    from typer.testing import CliRunner

    from envfactory_mcp.cli import app
    from envfactory_mcp.trajectories.charts import COLOURS

    out = tmp_path / "cmp.html"
    result = CliRunner().invoke(app, ["view", str(scripted_runs.demonstrator), str(scripted_runs.random),
                                      "-o", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(out.as_uri())
        headers = page.locator("#compare thead th").all_inner_texts()
        for letter in "AB":
            for column in ("outcome", "reward", "steps", "tokens", "cost (USD)", "time (s)"):
                assert f"{letter} {column}" in headers
        assert headers[:3] == ["task", "request", "gold"]
        rows = "#compare tbody tr:not([hidden])"
        assert page.locator(rows).count() == 6 and page.inner_text("#c-count") == "6"
        first = page.locator(rows).first
        request = first.locator("td:nth-child(2)")
        assert request.inner_text().strip() and request.get_attribute("title")
        assert "→" in first.locator("td:nth-child(3)").inner_text()
        # Sort by B's time: the rows follow the recorded times.
        page.click(f"#compare thead th:nth-child({headers.index('B time (s)') + 1})")
        times = page.locator(f"{rows} td:nth-child({headers.index('B time (s)') + 1})").all_inner_texts()
        assert [float(t) for t in times] == sorted(float(t) for t in times)
        page.check("#c-differ")
        assert page.inner_text("#c-count") == "6"  # the demonstrator passes every task, random none
        # The charts: one bar per bin and run; the failure reasons above them.
        assert page.locator("#compare-reward rect.bar").count() == 22
        counts = page.locator('#compare-reward rect.bar[data-series="B: random"]').evaluate_all(
            "rs => rs.map(r => Number(r.dataset.count))"
        )
        assert sum(counts) == 6
        assert page.locator("#compare-steps rect.bar").count() > 2
        failures_y = page.locator("#failures-B").bounding_box()
        chart_y = page.locator("#compare-reward").bounding_box()
        assert failures_y is not None and chart_y is not None and failures_y["y"] < chart_y["y"]
        # Screenshots: the page is not blank; each chart draws both runs' colours.
        shot = page.screenshot(path=str(tmp_path / "cmp.png"), full_page=True)
        assert (tmp_path / "cmp.png").stat().st_size > 20_000
        checker = browser.new_page()
        whole = checker.evaluate(_PIXELS, [base64.b64encode(shot).decode(), []])
        assert whole["height"] > 1000 and whole["colours"] > 50 and 0.3 < whole["white"] < 0.99
        for chart in ("#compare-reward", "#compare-steps"):
            png = page.locator(chart).screenshot(path=str(tmp_path / f"{chart[1:]}.png"))
            pixels = checker.evaluate(_PIXELS, [base64.b64encode(png).decode(), list(COLOURS[:2])])
            assert pixels["width"] >= 500 and pixels["found"] == [True, True], pixels
            assert pixels["colours"] > 10 and pixels["white"] < 0.95, pixels
        # An outcome opens the episode on the run's own page.
        link = page.locator(f"{rows} td a").first
        target = link.get_attribute("href")
        assert target is not None and target.startswith("cmp-")
        link.click()
        page.wait_for_load_state()
        assert page.locator(f"details#{target.split('#')[1]}").get_attribute("open") is not None
        browser.close()
    assert errors == []
