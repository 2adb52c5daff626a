"""Pass 2 of the OpenAPI import: which path is a collection, an item, a sub-collection, a
singleton, a search or an action, and so which table each operation works on."""

from __future__ import annotations

import re

from envfactory_mcp.crud.model import (
    snake,
)
from envfactory_mcp.synth.openapi import words
from envfactory_mcp.synth.openapi.drafts import (
    Draft,
    Op,
    prefix_before_run,
)
from envfactory_mcp.synth.openapi.paths import Masked, Token, masked
from envfactory_mcp.synth.openapi.reading import Reading
from envfactory_mcp.synth.openapi.shapes import Shape


class Classifying(Reading):
    # ------------------------------------------------------------------ 2. resources

    def classify(self) -> None:
        items = {op.mask[:-1] for op in self.ops if op.tokens and not op.tokens[-1].literal}
        self.item_rkeys = items
        # collections with items first, so subs can be matched to them
        for op in self.ops:
            if not op.tokens:
                op.role = "root"
            elif not op.tokens[-1].literal:
                op.role = "item"
                op.draft = self._draft(op.mask[:-1], op.tokens[:-1], "collection", op.tokens[-1].params)
                op.kind = {"get": "get", "delete": "delete"}.get(op.method, "update")
                op.draft.ops.append(op)
            elif op.mask in items:
                op.role = "collection"
                op.draft = self._draft(op.mask, op.tokens, "collection")
                op.kind = {"get": "list", "post": "create"}.get(op.method, "record")
                if op.method in ("put", "patch"):  # ``PUT /pet`` with the pet, id and all, in its body
                    op.kind, op.body_key = "update", True
                if op.kind == "create" and words.is_security(
                    [t.name or "" for t in op.tokens], bool(op.slots)
                ):
                    op.kind = "security"
                op.draft.ops.append(op)
            else:
                op.role = "sub"
        for draft in list(self.drafts.values()):
            self._schema(draft)
        self._index_schemas()
        subs: dict[Masked, list[Op]] = {}
        for op in self.ops:
            if op.role == "sub":
                subs.setdefault(op.mask, []).append(op)
        for mask, ops in subs.items():
            self._classify_sub(mask, ops)
        for op in self.ops:
            if op.role == "root":
                self._classify_root(op)
        for draft in list(self.drafts.values()):
            if draft.shape is None and draft.role != "implicit":
                self._schema(draft)
        self._index_schemas()

    def _draft(
        self, rkey: Masked, tokens: list[Token], role: str, item_params: tuple[str, ...] = ()
    ) -> Draft:
        draft = self.drafts.get(rkey)
        if draft is None:
            ancestors, slots = [], []
            for i, token in enumerate(tokens):
                if not token.literal:
                    parent = masked(tokens[:i])
                    ancestors.append(parent)
                    slots.append(token.params)
                    if parent not in self.drafts:
                        self._draft(parent, tokens[:i], "implicit", token.params)
            literal = next((t.name for t in reversed(tokens) if t.name), "items")
            draft = Draft(rkey, literal, role, ancestors, slots)
            self.drafts[rkey] = draft
        if role == "collection" and draft.role in ("implicit", "list"):
            draft.role = "collection"
        if item_params and not draft.item_params:
            draft.item_params = item_params
        return draft

    def _schema(self, draft: Draft) -> None:
        """The shape that describes a draft's rows, and the request bodies that write them."""
        ranked: list[tuple[int, Shape]] = []
        for op in draft.ops:
            if op.kind in ("action", "record", "search") or op.draft is not draft:
                continue
            shape, _ = self.response(op) if op.method in ("get", "post", "put", "patch") else (None, False)
            if (op.role == "item" and op.method == "get" and shape is not None) or (
                op.kind == "singleton-get" and shape is not None
            ):
                ranked.append((0, self.unwrap(shape)))
            elif op.kind == "list" and shape is not None:
                found = self.list_items(shape, draft.literal)
                if found is not None:
                    ranked.append((1, found))
            elif op.kind == "create" and shape is not None:
                ranked.append((2, self.unwrap(shape)))
            elif op.kind == "update" and shape is not None:
                ranked.append((3, self.unwrap(shape)))
            if op.kind in ("create", "update", "batch"):
                body = self.body(op)
                rows = self.batch_rows(body) if op.kind != "update" else None
                if rows is not None and op.kind != "update":  # several new rows in one call
                    op.kind, op.batch = "batch", rows[0]
                    body = rows[1]
                if body is not None:
                    body = self.unwrap(body)
                    draft.bodies.append((op, body))
                    ranked.append((4 if op.kind in ("create", "batch") else 5, body))
        ranked = [(rank, shape) for rank, shape in ranked if shape.kind == "object" or rank <= 1]
        if ranked:
            draft.shape = min(ranked, key=lambda pair: pair[0])[1]

    def _index_schemas(self) -> None:
        for draft in sorted(self.drafts.values(), key=lambda d: (d.role != "collection", len(d.rkey))):
            shape = draft.shape
            if shape is not None and shape.name and shape.where not in self.by_schema:
                self.by_schema[shape.where] = draft

    def _classify_root(self, op: Op) -> None:
        if op.method == "get":
            draft = self._draft(("service",), [Token(name="service")], "singleton")
            op.kind, op.draft = "singleton-get", draft
            draft.ops.append(op)
        else:
            op.kind = "record"

    def _classify_sub(self, mask: Masked, ops: list[Op]) -> None:
        """A path ending in a literal that is not a collection with items: what is it?"""
        tokens = ops[0].tokens
        verb = tokens[-1].name or ""
        before = tokens[-2] if len(tokens) > 1 else None
        owner: Draft | None = None
        place = "top"
        if before is not None and not before.literal:
            owner, place = self.drafts.get(mask[:-2]), "item"
        elif before is not None and mask[:-1] in self.drafts and self.drafts[mask[:-1]].role == "collection":
            owner, place = self.drafts[mask[:-1]], "collection"
        literals = [t.name for t in tokens if t.name]
        methods = {op.method: op for op in ops}
        get = methods.get("get")
        got, bare = self.response(get) if get else (None, False)
        self._bare = bare
        listed = self.list_items(got, verb) if got is not None else None
        for op in ops:
            if words.is_security(literals[-2:], keyed=bool(op.slots)):
                op.kind = "security"
                continue
            if op.method == "get":
                self._sub_get(op, mask, tokens, verb, owner, place, got, listed, methods)
            elif op.method == "post":
                self._sub_post(op, mask, tokens, verb, owner, place, listed, methods)
            elif op.method in ("put", "patch"):
                if place == "item" and owner is not None and get is None and self._lifecycle(owner, verb):
                    op.kind, op.draft = "action", owner  # ``PUT /incidents/{id}/resolve``: a transition
                elif listed is not None or (owner is None and place != "top"):
                    op.kind = "record"
                    op.draft = owner
                else:
                    draft = self._singleton(mask, tokens, place)
                    op.kind, op.draft, op.upsert = "update", draft, place == "item"
                    draft.ops.append(op)
            elif op.method == "delete":
                existing = self.drafts.get(mask)
                if existing is not None and existing.singleton and place == "item":
                    op.kind, op.draft = "delete", existing
                    existing.ops.append(op)
                else:
                    op.kind, op.draft = "record", owner

    def _lifecycle(self, owner: Draft, word: str) -> bool:
        """Whether ``word`` (a path's last word) moves ``owner``'s rows to a state: a verb we
        know, or one whose past form is among the values of the rows' state."""
        verb = words.verb_of(word)
        if verb in words.IRREGULAR:
            return True
        forms = set(words.past_forms(verb))
        for loc in self._props(owner.shape).values():
            shape = self.shapes.of(loc)
            if shape.enum and any(words.normal(v) in forms for v in shape.enum):
                return True
        return False

    def _singleton(self, mask: Masked, tokens: list[Token], place: str) -> Draft:
        draft = self._draft(mask, tokens, "singleton")
        if draft.role == "implicit":
            draft.role = "singleton"
        return draft

    def _sub_get(
        self,
        op: Op,
        mask: Masked,
        tokens: list[Token],
        verb: str,
        owner: Draft | None,
        place: str,
        got: Shape | None,
        listed: Shape | None,
        methods: dict[str, Op],
    ) -> None:
        search = words.is_search(verb) or (len(tokens) > 1 and words.is_search(tokens[-2].name or ""))
        if listed is not None:
            target = self.by_schema.get(listed.where) if listed.name else None
            if target is None and search and owner is not None and place == "collection":
                target = owner
            if (
                target is None
                and search
                and len(tokens) > 1
                and tokens[-2].name
                and words.is_search(tokens[-2].name)
            ):
                target = next(
                    (d for d in self.drafts.values() if d.literal == verb and d.role == "collection"), None
                )
            if target is not None and self._bind(op, target):
                op.kind, op.draft = "search", target
                target.ops.append(op)
                return
            draft = self._draft(mask, tokens, "list")
            op.kind, op.draft = "list", draft
            draft.ops.append(op)
            return
        if got is not None and got.kind == "object":
            shape = self.unwrap(got)
            target = self.by_schema.get(shape.where) if shape.name else None
            if target is not None and target is owner and place == "item":
                op.kind, op.draft = "get", owner  # another way to read the item
                owner.ops.append(op)
                return
            if target is not None and place == "collection" and target is owner and self._bind(op, target):
                op.kind, op.draft = "search", target  # a lookup: the rows matching the query
                target.ops.append(op)
                return
            draft = self._singleton(mask, tokens, place)
            op.kind, op.draft = "singleton-get", draft
            draft.ops.append(op)
            return
        if any(m in methods for m in ("put", "patch")):
            draft = self._singleton(mask, tokens, place)
            op.kind, op.draft = "singleton-get", draft
            draft.ops.append(op)
            return
        if got is None and self._bare and place != "collection" and not _verbish(verb):
            draft = self._draft(mask, tokens, "list")  # documented without a body: rows with a key only
            op.kind, op.draft = "list", draft
            draft.ops.append(op)
            self.note(
                op.where + "/responses", "content", "no response body is documented: its rows have only a key"
            )
            return
        op.kind = "unserved"
        if got is not None and got.error:
            self.note(op.where, "operation", f"its response schema cannot be read: {got.error}")
        else:
            self.note(
                op.where, "operation", "the response is not JSON data (a file, text or nothing): not modelled"
            )

    def _sub_post(
        self,
        op: Op,
        mask: Masked,
        tokens: list[Token],
        verb: str,
        owner: Draft | None,
        place: str,
        listed: Shape | None,
        methods: dict[str, Op],
    ) -> None:
        if listed is not None:  # the sub path is a list: POST adds to it
            draft = self._draft(mask, tokens, "list")
            op.kind, op.draft = "create", draft
            draft.ops.append(op)
            return
        rows = self.batch_rows(self.body(op)) if place == "collection" and owner is not None else None
        if rows is not None and owner is not None and _creates_several(op, verb):
            op.kind, op.draft, op.batch = "batch", owner, rows[0]  # rows of the collection, in one call
            owner.bodies.append((op, rows[1]))
            owner.ops.append(op)
            return
        if words.is_batch(verb):
            op.kind = "unserved"
            self.note(op.where, "operation", "a batch endpoint (several records in one call): not served")
            return
        response, _ = self.response(op)
        if words.is_search(verb):
            items = self.list_items(response, "") if response is not None else None
            target = self.by_schema.get(items.where) if items is not None and items.name else None
            target = target or (owner if place == "collection" else None)
            if target is not None and self._bind(op, target):
                op.kind, op.draft = "search", target
                target.ops.append(op)
                return
        if place == "item" and owner is not None:
            op.kind, op.draft = "action", owner
            return
        made = response if response is not None and self.unwrap(response).kind == "object" else self.body(op)
        if place == "top" and made is not None and self.unwrap(made).is_object and not _verbish(verb):
            draft = self._draft(mask, tokens, "list")  # a noun: each call makes a record
            op.kind, op.draft = "create", draft
            draft.ops.append(op)
            return
        op.kind, op.draft = "record", owner

    def _bind(self, op: Op, target: Draft) -> bool:
        """Whether the path's parameters can scope ``target``'s rows: none, the same parents as
        its own paths, or one parent more (``/accounts/{id}/statuses`` over ``statuses``)."""
        runs, own = len(op.slots), len(target.ancestors)
        if runs == 0 or (runs == own and op.mask[: len(target.rkey) - 1] == target.rkey[:-1]):
            return True
        if runs == own + 1:
            parent = self.drafts.get(prefix_before_run(op.mask, runs - 1))
            if parent is not None and parent is not target and not parent.singleton:
                op.bound = {runs - 1: ""}  # the link column is found once the columns are known
                return True
        return False


BATCH_NOT_CREATE = re.compile(
    r"(delet|remov|updat|modif|patch|edit|get|retriev|read|fetch|query|lookup|search|find|cancel|move|"
    r"archiv|statistic|validat|check|send|export)"
)


def _creates_several(op: Op, verb: str) -> bool:
    """``POST /users/createWithList``, ``POST /contacts/batch`` ("Bulk create contacts"): a
    call that adds several rows, as its path word, id or summary say (a batch delete does not)."""
    said = " ".join(
        [verb, snake(str(op.node.get("operationId") or "")), snake(str(op.node.get("summary") or ""))]
    )
    if BATCH_NOT_CREATE.search(said):
        return False
    first = verb.split("_", 1)[0]
    return (
        words.is_batch(verb)
        or first in ("create", "add", "insert", "import", "upload", "post")
        or bool(re.search(r"\b(batch|bulk)\b|_(batch|bulk)_|^(batch|bulk)_|_(batch|bulk)$", said))
    )


def _verbish(word: str) -> bool:
    first = word.split("_", 1)[0]
    return first in words.IRREGULAR or first in (
        "run",
        "generate",
        "validate",
        "send",
        "check",
        "test",
        "execute",
        "trigger",
        "sync",
        "import",
        "export",
        "upload",
        "download",
        "copy",
        "move",
        "merge",
        "clone",
        "transfer",
        "recover",
        "restore",
        "reset",
        "clear",
        "purge",
        "flush",
    )
