"""The blind demonstrator's and the scripted user's caches (issue 32: d828cec4, 08a48848,
ed3c1c49) held to the computation each stands for, written out below as it was before the
caches: ``_norm``/``_words`` by text, the spec's enum words, key entities, hand-off tool and
vocabulary by spec, the ok outputs and created ids by outputs taken, an object's text,
scalars and owner by object, a candidate's text glued from normalised parts (``_glue``), and
the user's content words and questions by text.

Real inputs: episodes of the demonstrator against the scripted user on tasks of several
library environments, the tools called in-process on a session of the seed, every cached
answer checked against the fresh one as the demonstrator asks for it; and objects that are
equal (as dicts, as keys) but read differently: the same fields in another order, ``1``,
``1.0`` and ``True``, a list and a tuple."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.scoring.claims import claims_communicated
from envfactory_mcp.scoring.reward import called_names
from envfactory_mcp.sim import planner, users
from envfactory_mcp.sim.planner import SEP, BlindDemonstrator, _plain, _scalars, _subtree_text
from envfactory_mcp.sim.speech import Speaker
from envfactory_mcp.tasks.model import Task
from envfactory_mcp.tasks.naturalness import spec_vocabulary

# ---------------------------------------------------------------- the uncached computations


def norm(text: str) -> str:
    return re.sub(r"[_\s]+", " ", text.casefold())


def planner_words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", norm(text))) - {"my", "a", "the", "an", "of", "i", "to", "for"}


def user_words(text: str) -> set[str]:
    found = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if len(word) >= 3 and word not in users.STOPWORDS:
            found.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return found


def questions(text: str) -> list[str]:
    found = [q.strip() for q in re.findall(r"[^.!?\n]*\?", text) if q.strip(" ?")]
    if found:
        return found
    return [text] if any(cue in text.lower() for cue in users.REQUEST_CUES) else []


def spec_parts(spec: Any) -> tuple[dict[tuple[str, str], str], frozenset[str]]:
    """A demonstrator's (labels, shown) as its constructor worked them out before d828cec4."""
    labels: dict[tuple[str, str], str] = {
        (column.name, str(value)): " ".join(f"«{w}»" for w in [label.display, *label.words])
        for table in spec.tables
        for column in table.columns
        for value, label in (column.enum_labels or {}).items()
    }
    plain_enums = {
        (column.name, str(value))
        for table in spec.tables
        for column in table.columns
        for value in column.enum or []
        if isinstance(value, str)
        and re.search(r"[a-z]", value)
        and (column.enum_labels or {}).get(value) is None
    }
    for key in plain_enums:
        labels.setdefault(key, f"«{norm(key[1])}»")
    shown = frozenset(
        norm(w)
        for table in spec.tables
        for column in table.columns
        for label in (column.enum_labels or {}).values()
        for w in [label.display, *label.words]
    ) | {norm(value) for _, value in plain_enums}
    return labels, shown


_ENTITIES: dict[tuple[int, str], tuple[Any, str | None]] = {}


def key_entity(spec: Any, key: str) -> str | None:
    """The entity ``key`` names in ``spec`` (remembered here by the spec itself and the whole
    key: the answer to check the planner's against is asked for at every object walked)."""
    found = _ENTITIES.get((id(spec), key))
    if found is None or found[0] is not spec:
        found = _ENTITIES[id(spec), key] = (spec, _key_entity(spec, key))
    return found[1]


def _key_entity(spec: Any, key: str) -> str | None:
    last = key.rsplit(".", 1)[-1]
    entities = {e for t in spec.tools for e in t.outputs.values()}
    for tool in spec.tools:
        param = tool.params.get(last)
        if param is not None and param.entity:
            return str(param.entity)
        for path, entity in tool.outputs.items():
            if path.rsplit(".", 1)[-1].removesuffix("[]") == last:
                return str(entity)
    bare = re.sub(r"_ids?$", "", last)
    return bare if bare in entities else None


def transfer_tool(spec: Any) -> str | None:
    for tool in spec.tools:
        words = planner_words(f"{tool.name} {tool.intent}")
        if words & {"human", "humans", "person", "agent", "agents"} and "summary" in tool.params:
            return str(tool.name)
    return None


Output = tuple[str, dict[str, Any], Any]


def ok_outputs(outputs: list[Output]) -> list[Output]:
    return [o for o in outputs if isinstance(o[2], dict) and "error" not in o[2]]


def me_of(spec: Any, outputs: list[Output]) -> tuple[str, str] | None:
    auth = spec.policy_rules.authentication
    tools = {t.name: t for t in spec.tools}
    for name, _, output in ok_outputs(outputs):
        if auth is None or name not in auth.tools:
            continue
        for path, entity in tools[name].outputs.items():
            if "." not in path and "[]" not in path and output.get(path) is not None:
                return entity, str(output[path])
    return None


def owned_by_other(spec: Any, node: dict[str, Any], me: tuple[str, str]) -> bool:
    return any(
        not isinstance(v, (dict, list)) and v is not None and str(v) != me[1] and key_entity(spec, k) == me[0]
        for k, v in node.items()
    )


def created(spec: Any, outputs: list[Output]) -> set[str]:
    tools = {t.name: t for t in spec.tools}
    seen: set[str] = set()
    made: set[str] = set()
    for name, args, output in ok_outputs(outputs):
        tool = tools.get(name)
        given = {str(v) for v in _scalars(args)}
        if tool is not None and tool.effect == "write":
            for path in tool.outputs:
                if "[]" not in path and "." not in path and output.get(path) is not None:
                    value = str(output[path])
                    if value not in seen and value not in given:
                        made.add(value)
        seen |= given | {str(v) for v in _scalars(output)}
    return made


def candidates(demo: BlindDemonstrator, entity: str) -> list[tuple[Any, str, str]]:
    """``_read_candidates`` as before 08a48848 and d828cec4: each candidate's text the
    ancestors' plain values, the object's words and what points at it joined raw, then
    normalised whole; nothing remembered."""
    spec = demo.spec
    tools = {t.name: t for t in spec.tools}
    labels = spec_parts(spec)[0]
    scalar, listed = demo._id_fields(entity)
    outputs = ok_outputs(demo._outputs)
    me = me_of(spec, demo._outputs)
    out: list[tuple[Any, str, str]] = []

    def walk(node: Any, context: str, whole: str) -> None:
        if isinstance(node, dict):
            if me is not None and owned_by_other(spec, node, me):
                return
            plain = _plain(node)
            for key, value in node.items():
                if key in scalar and not isinstance(value, (dict, list)) and value is not None:
                    joined = SEP.join(about[str(v)] for v in _scalars(node) if str(v) in about and v != value)
                    joined += pointing.get(str(value), "")
                    out.append(
                        (value, norm(f"{context}{SEP}{_subtree_text(node, labels)}{SEP}{joined}"), whole)
                    )
                if key in listed and isinstance(value, list):
                    out.extend((v, "", whole) for v in value if not isinstance(v, (dict, list)))
            for value in node.values():
                walk(value, context + SEP + plain, whole)
        elif isinstance(node, list):
            for value in node:
                walk(value, context, whole)

    about: dict[str, str] = {}
    pointing: dict[str, str] = {}
    for name, args, output in outputs:
        plain = _plain(output)
        for v in output.values():
            if isinstance(v, (str, int)) and not isinstance(v, bool):
                pointing[str(v)] = pointing.get(str(v), "") + SEP + plain
        tool = tools.get(name)
        if tool is not None and tool.effect != "read":
            continue
        for v in args.values():
            if isinstance(v, (str, int)):
                about[str(v)] = about.get(str(v), "") + SEP + plain
    changed: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for index, (name, args, output) in enumerate(outputs):
        start = len(out)
        walk(output, "", norm(_subtree_text(output, labels)))
        spans.append((start, len(out)))
        tool = tools.get(name)
        if tool is not None and tool.effect == "write":
            given = {str(v) for v in _scalars(args)}
            for path in tool.outputs:
                if "[]" not in path and "." not in path and str(output.get(path)) in given:
                    changed[str(output[path])] = index
    return [
        entry
        for index, (start, end) in enumerate(spans)
        for entry in out[start:end]
        if changed.get(str(entry[0]), -1) <= index
    ]


# ---------------------------------------------------------------- checked as asked for


class Checked(BlindDemonstrator):
    """The demonstrator, every cached answer it asks itself for compared with the fresh
    one (``checks``: how many of each)."""

    def __init__(self, seed: int = 0, spec: Any = None) -> None:
        super().__init__(seed, "varied", spec)
        self.checks: Counter[str] = Counter()
        self._fresh_labels = spec_parts(spec)[0]

    def _check(self, what: str, got: Any, fresh: Any) -> Any:
        assert got == fresh, (what, got, fresh)
        self.checks[what] += 1
        return got

    def _candidates(self, entity: str, with_output: bool = False) -> list[Any]:
        got = super()._candidates(entity, with_output)
        fresh = candidates(self, entity)
        return self._check("candidates", got, fresh if with_output else [(v, t) for v, t, _ in fresh])

    def _read_candidates(self, entity: str) -> list[tuple[Any, str, str]]:
        got = super()._read_candidates(entity)
        self.checks["candidate texts"] += len(got)
        return self._check("read candidates", got, candidates(self, entity))

    def _ok_outputs(self) -> list[Output]:
        return self._check("ok outputs", super()._ok_outputs(), ok_outputs(self._outputs))

    def _created(self) -> set[str]:
        return self._check("created", super()._created(), created(self.spec, self._outputs))

    def _someone_elses(self, node: dict[str, Any], me: tuple[str, str]) -> bool:
        return self._check(
            "someone else's", super()._someone_elses(node, me), owned_by_other(self.spec, node, me)
        )

    def _normed_of(self, node: dict[str, Any]) -> tuple[str, str]:
        fresh = (norm(_plain(node)), norm(_subtree_text(node, self._fresh_labels)))
        return self._check("normed", super()._normed_of(node), fresh)

    def _text_of(self, node: dict[str, Any]) -> str:
        return self._check("text", super()._text_of(node), _subtree_text(node, self._fresh_labels))

    def _scalars_of(self, node: dict[str, Any]) -> list[Any]:
        return self._check("scalars", super()._scalars_of(node), _scalars(node))

    def _key_entity(self, key: str) -> str | None:
        return self._check("key entity", super()._key_entity(key), key_entity(self.spec, key))

    def _transfer_tool(self) -> str | None:
        return self._check("transfer tool", super()._transfer_tool(), transfer_tool(self.spec))


def checking(real: Callable[[str], Any], fresh: Callable[[str], Any], what: str, counts: Counter[str]) -> Any:
    """``real`` (the cached function), its answer compared with ``fresh``'s on each call."""

    def call(text: str) -> Any:
        got = real(text)
        assert got == fresh(text), (what, text, got)
        counts[what] += 1
        return got

    return call


@pytest.fixture
def checked_text(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The text caches of planner and users, each call compared with the fresh answer."""
    counts: Counter[str] = Counter()
    monkeypatch.setattr(planner, "_norm", checking(planner._norm, norm, "norm", counts))
    monkeypatch.setattr(planner, "_words", checking(planner._words, planner_words, "planner words", counts))
    monkeypatch.setattr(users, "_words", checking(users._words, user_words, "user words", counts))
    monkeypatch.setattr(users, "questions_of", checking(users.questions_of, questions, "questions", counts))
    return counts


class View:
    """The host's ``EpisodeView`` over an in-process session: the goal met when the
    required calls were made, the state is the gold's and every claim was said."""

    def __init__(self, task: Task, env: Environment, session: Any, messages: list[dict[str, Any]]) -> None:
        self.task, self.env, self.session, self.messages = task, env, session, messages
        self.writes = 0

    async def goal_met(self) -> bool:
        called = set(called_names(self.messages))
        if any(tool not in called for tool in self.task.gold.required_calls):
            return False
        if self.session.hash() != self.task.gold.final_state_hash:
            return False
        return not claims_communicated(self.task.gold.claims, self.messages, self.env.spec)[1]

    def writes_done(self) -> int:
        return self.writes


async def play(env: Environment, task: Task, agent: BlindDemonstrator) -> list[dict[str, Any]]:
    """One episode of ``agent`` and the scripted user, the tools run on a fresh session."""
    toolbox, session = env.toolbox(), env.new_session()
    user = users.ScriptedUser()
    tools = [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
        }
        for t in env.spec.tools
    ]
    agent.start(task, tools, "policy")
    messages: list[dict[str, Any]] = [{"role": "user", "content": user.start(task)}]
    view = View(task, env, session, messages)
    try:
        for _ in range(60):
            turn = await agent.act(list(messages))
            messages.append(turn.as_message())
            if turn.tool_calls:
                for call in turn.tool_calls:
                    out = toolbox.call(session.db, call.name, call.arguments or {})
                    view.writes += out.ok and toolbox.tools[call.name].effect == "write"
                    content = out.output_text() if out.ok else f"Error: {out.error}"
                    messages.append(
                        {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}
                    )
                continue
            reply = await user.reply(list(messages), view)
            messages.append({"role": "user", "content": reply.content})
            if reply.stop_token is not None:
                break
    finally:
        session.close()
    return messages


def play_checked(env: Environment, tasks: list[Task], counts: Counter[str]) -> list[Checked]:
    """The tasks played by checked demonstrators (one spec object, as a rollout's); the
    checks counted into ``counts``."""
    played = []
    for task in tasks:
        agent = Checked(seed=3, spec=env.spec)
        anyio.run(play, env, task, agent)
        counts.update(agent.checks)
        speaker = agent._speech
        assert isinstance(speaker, Speaker)
        tools, fields = spec_vocabulary(env.spec)
        assert speaker.vocabulary() == (frozenset(tools), frozenset(fields))
        played.append(agent)
    return played


CHECKED = [
    "candidates",
    "read candidates",
    "ok outputs",
    "created",
    "normed",
    "text",
    "scalars",
    "key entity",
]
TEXT = ["norm", "planner words", "user words", "questions"]


def test_every_cached_answer_of_retail_episodes_is_the_fresh_one(retail_env, retail_tasks, checked_text):
    """Retail episodes: every candidate the demonstrator reads (its text glued from parts),
    its ok outputs, created ids, objects' texts and scalars, key entities, and every text
    the planner and the user normalise, split or question, as worked out fresh."""
    counts: Counter[str] = Counter()
    play_checked(retail_env, retail_tasks(40, seed=5)[:6], counts)
    assert all(counts[what] for what in CHECKED), counts
    assert counts["candidate texts"] >= 50, counts
    assert all(checked_text[what] for what in TEXT), checked_text


# One environment per shape: services with enum labels and refusals (hair_salon), a clinic
# with totals and conditions, every customer's objects listed (dog_walking: the owner check),
# a hand-off tool (airline, telecom), accounts and transfers (banking).
EPISODE_ENVS = ["hair_salon", "clinic", "dog_walking", "airline", "telecom", "banking"]


@pytest.mark.slow
@pytest.mark.parametrize("name", EPISODE_ENVS)
def test_every_cached_answer_of_library_episodes_is_the_fresh_one(name, checked_text):
    from envfactory_mcp.tasks.generate import generate_tasks

    env = build_env(load_blueprint(name))
    tasks, _ = generate_tasks(env, 10, seed=9)
    counts: Counter[str] = Counter()
    play_checked(env, tasks, counts)
    assert all(counts[what] for what in CHECKED), counts
    assert all(checked_text[what] for what in TEXT), checked_text
    if name == "dog_walking":
        assert counts["someone else's"] > 0, counts


# ---------------------------------------------------------------- _glue


_RUN = re.compile(r"[_\s]")


def _touchy() -> list[str]:
    """Every code point that casefolds to something else or is in a run ``_norm`` joins."""
    return [
        c
        for c in map(chr, range(0x110000))
        if not "\ud800" <= c <= "\udfff" and (c.casefold() != c or _RUN.match(c))
    ]


def test_glue_is_norm_of_the_joined_text_at_every_touchy_code_point():
    """``_glue(_norm(a), _norm(b)) == _norm(a + b)`` where ``a`` ends or ``b`` starts with a
    character that casefolds (``ß``, ``İ``, ``ﬃ``) or a space or ``_`` of any kind."""
    glue, normed = planner._glue, planner._norm
    touchy = _touchy()
    assert {" ", "_", "\t", "\u00a0", "\u2028", "ß", "İ", "Σ"} <= set(touchy)
    for c in touchy:
        for a, b in [
            ("x" + c, c + "y"),
            (c, " "),
            (" ", c),
            ("x" + c, "_y"),
            ("x_", c + "y"),
            (c, c),
            (c, ""),
        ]:
            assert glue(normed(a), normed(b)) == norm(a + b), (a, b)


# pieces that start or end a run of spaces and ``_`` or casefold to something longer
PIECES = ["", " ", "_", "a", "B_", " _ ", "\t", "\u00a0x", "ß ", "İ", "Σ\u2028", SEP, "x_", "_y", "1."]


def test_glue_over_any_parts_is_norm_of_their_join():
    """Three pieces in every order, glued one after another from their own ``_norm`` as a
    candidate's text is: the same text as ``_norm`` of the three joined."""
    for parts in itertools.product(PIECES, repeat=3):
        glued = ""
        for part in parts:
            glued = planner._glue(glued, planner._norm(part))
        assert glued == norm("".join(parts)), parts


# ---------------------------------------------------------------- text caches


@pytest.fixture(scope="module")
def envs() -> dict[str, Environment]:
    return {name: build_env(load_blueprint(name)) for name in ["hair_salon", "clinic", "dog_walking"]}


def seed_texts(env: Environment) -> Iterator[str]:
    """Every value of the seed as text, each row's plain values and words, each table's."""
    for rows in env.seed_state.values():
        for row in rows:
            yield from (str(v) for v in row.values())
            yield _plain(row)
            yield _subtree_text(row)
        yield _subtree_text(rows)  # longer than any cache's limit


def test_norm_and_words_are_the_fresh_ones_for_every_seed_text(envs):
    texts = sorted({t for env in envs.values() for t in seed_texts(env)})[::3]
    texts += ["x" * 511 + " _A", "x" * 510 + " _A", "Ab_" * 200, "İ" * 600, "", " ", "_", "A", "a"]
    assert any(len(t) > 4096 for t in texts)
    for _ in range(2):  # and again, from the caches
        for text in texts:
            assert planner._norm(text) == norm(text), text
            words = planner._words(text)
            assert words == planner_words(text), text
            words.add("not a word")  # the caller's own set
            assert planner._words(text) == planner_words(text), text


def test_user_words_and_questions_are_the_fresh_ones(envs):
    # a row's texts (a whole table's, without a question mark, costs ``questions_of``'s
    # pattern time growing with the square of its length)
    texts = sorted({t for env in envs.values() for t in seed_texts(env) if len(t) < 300})[::4]
    texts += [
        "Could you share your email? And the zip code?",
        "Could you share your email? And the zip code!",
        "Please share your email.",
        "Please share your email",
        "Thanks. All done.",
        "What is the order number?\nWhich items?",
        "What is it? " * 400,  # longer than the questions' cache limit
        "Please tell me the booking date. " * 150,
    ]
    for _ in range(2):
        for text in texts:
            assert users._words(text) == user_words(text), text
            found = users.questions_of(text)
            assert found == questions(text), text
            found.append("not a question")  # the caller's own list
            assert users.questions_of(text) == questions(text), text


# ---------------------------------------------------------------- spec caches


def spec_keys(spec: Any) -> set[str]:
    keys = {p for t in spec.tools for p in t.params}
    keys |= {path.rsplit(".", 1)[-1].removesuffix("[]") for t in spec.tools for path in t.outputs}
    keys |= {c.name for table in spec.tables for c in table.columns}
    keys |= {f"{table.name}.{c.name}" for table in spec.tables for c in table.columns}
    return keys | {"user_id", "not_a_field_id", "x"}


def check_spec_caches(specs: list[Any]) -> None:
    """Each spec's demonstrator words, key entities, hand-off tool and speaker vocabulary as
    worked out fresh, the specs taken in turn and then again in reverse (a cache of the
    last spec asked about must notice another)."""
    for spec in [*specs, *reversed(specs), *specs]:
        demo = BlindDemonstrator(seed=1, spec=spec)
        labels, shown = spec_parts(spec)
        assert (demo._labels, demo._shown) == (labels, shown), spec.name
        for key in sorted(spec_keys(spec)):
            assert demo._key_entity(key) == key_entity(spec, key), (spec.name, key)
        assert demo._transfer_tool() == transfer_tool(spec), spec.name
        tools, fields = spec_vocabulary(spec)
        assert Speaker(1, "t", spec).vocabulary() == (frozenset(tools), frozenset(fields)), spec.name


def test_the_spec_caches_are_each_specs_own(envs, retail_env, mini_env):
    specs = [retail_env.spec, *(env.spec for env in envs.values()), mini_env.spec]
    # they differ where a cache that kept one spec's answer would be caught
    assert len({frozenset(spec_parts(s)[0].items()) for s in specs}) == len(specs)
    assert len({transfer_tool(s) for s in specs}) > 1
    assert len({key_entity(s, "user_id") for s in specs}) > 1
    check_spec_caches(specs)


@pytest.mark.slow
def test_the_spec_caches_are_each_specs_own_in_every_library_environment():
    from paths import SERVERS_DIR

    from envfactory_mcp.blueprints import blueprint_names
    from envfactory_mcp.catalog import environment_spec

    specs = [environment_spec(SERVERS_DIR, name) for name in blueprint_names()]
    assert len(specs) >= 100
    check_spec_caches(specs)


# ---------------------------------------------------------------- objects alike as keys


@pytest.fixture
def started(retail_env, retail_tasks) -> Checked:
    """A demonstrator after a retail episode (its outputs real ones)."""
    agent = Checked(seed=3, spec=retail_env.spec)
    anyio.run(play, retail_env, retail_tasks(40, seed=5)[0], agent)
    assert len(agent._ok_outputs()) >= 2, "the episode read nothing"
    return agent


def alike(node: Any) -> Iterator[Any]:
    """Objects equal to ``node`` as dicts (or as keys) that read differently: its fields in
    reverse order, its numbers as floats or booleans, its lists as tuples."""
    if isinstance(node, dict):
        yield dict(reversed(node.items()))
        for key, value in node.items():
            for other in alike(value):
                yield {**node, key: other}
    elif isinstance(node, list):
        yield tuple(node)
        for i, value in enumerate(node[:2]):
            for other in alike(value):
                yield [*node[:i], other, *node[i + 1 :]]
    elif isinstance(node, bool):
        yield int(node)
    elif isinstance(node, int) and node in (0, 1):
        yield bool(node)
        yield float(node)
    elif isinstance(node, int):
        yield float(node)


def test_an_objects_text_is_its_own_not_that_of_an_equal_one(started, retail_tasks):
    """Each object read is known by itself: beside an equal one (another order, ``1.0`` or
    ``True`` for ``1``, a tuple for a list) read after it, each has its own text, scalars
    and candidates."""
    taken = list(started._outputs)
    entities = sorted({e for t in started.spec.tools for e in t.outputs.values()})
    variants = [
        (name, args, output, other) for name, args, output in taken for other in list(alike(output))[:4]
    ]
    differ = 0
    for name, args, output, other in variants:
        agent = Checked(seed=3, spec=started.spec)
        agent.start(retail_tasks(40, seed=5)[0], [], "policy")
        agent._outputs.extend([*taken, (name, dict(args), other)])
        for entity in entities:
            agent._candidates(entity, with_output=True)  # checked against the fresh
        assert agent._normed_of(other) == (
            norm(_plain(other)),
            norm(_subtree_text(other, agent._fresh_labels)),
        )
        assert agent._scalars_of(other) == _scalars(other)
        assert agent._created() == created(agent.spec, agent._outputs)
        differ += agent._normed_of(other) != agent._normed_of(output)
    assert differ > 10, differ


def test_whose_an_object_is_depends_on_who_is_signed_in(started):
    agent = started
    owner = next((k for _, _, o in agent._ok_outputs() for k in o if agent._key_entity(k) == "user"), None)
    assert owner is not None, "no output names its user"
    node = {owner: "someone", "note": "x"}
    for who in ["someone", "else", "someone", "else"]:
        assert agent._someone_elses(node, ("user", who)) is (who != "someone")
    assert agent._someone_elses(dict(node), ("order", "someone")) is False


def test_the_ok_outputs_and_created_ids_follow_every_output_taken(started, retail_tasks):
    """Outputs taken one at a time, errors among them and writes that return an id never
    seen (a new order): the ok outputs and the created ids each time those of all outputs
    taken so far."""
    taken = list(started._outputs)
    agent = Checked(seed=3, spec=started.spec)
    agent.start(retail_tasks(40, seed=5)[0], [], "policy")
    made = 0
    for i, (name, args, output) in enumerate(taken):
        agent._outputs.append((name, args, {"error": "refused"} if i % 3 == 1 else output))
        agent._ok_outputs()
        agent._created()
        agent._outputs.append((name, args, output))
        agent._ok_outputs()
        agent._created()
        agent._outputs.append(
            ("cancel_pending_order", {"order_id": "#W0"}, {"order_id": f"#N{i}", "user_id": "u"})
        )
        made += f"#N{i}" in agent._created()
    assert agent.checks["ok outputs"] >= 3 * len(taken)
    assert made == len(taken) >= 2
