"""OpenAPI 3.0 / 3.1 (and Swagger 2.0) documents -> an environment, with no model in the loop.

``import_openapi`` takes a document (a dict, JSON or YAML text, or a file path: then
relative ``$ref``s to other files resolve against its folder) and returns an
``ImportedEnv``: tables, tools, tool code and seed rows built by ``crud``, and what was
not modelled (``ignored``) with the coverage figures. The passes are described in
``importer.py`` (operations in ``reading.py``, resources in ``classify.py``, tables in
``tables.py``, tools in ``tools.py``, their shared state in ``drafts.py``); paths in
``paths.py``, schemas in ``shapes.py``, files and ``$ref``s in ``documents.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envfactory_mcp.crud.model import ImportedEnv, ResourceImportError, snake
from envfactory_mcp.synth.openapi.documents import Refs, parse_text, read_file
from envfactory_mcp.synth.openapi.importer import Importer
from envfactory_mcp.synth.swagger2 import convert_swagger2

__all__ = ["import_openapi"]


def import_openapi(
    document: dict[str, Any] | str | Path, name: str | None = None, seed: int = 0, *, path: Path | None = None
) -> ImportedEnv:
    """An environment from an OpenAPI 3.0.x / 3.1.x document, or a Swagger 2.0 one (converted
    to OpenAPI 3.0 first by ``synth.swagger2``; ``ignored`` then points into the converted form).

    ``document`` is the parsed document, a ``Path`` (or a one-line string naming an
    existing file), or JSON / YAML text. Relative ``$ref``s to other files resolve against
    the folder of the document's file: ``document`` when it is a path, else ``path``
    (the file a parsed document was read from). Raises ``ResourceImportError`` (one line, naming
    the place) when the document cannot be read or no operation can be served; anything
    else that is not modelled is in the result's ``ignored``.
    """
    doc: Any = document
    if isinstance(document, Path):
        path, doc = document, read_file(document, document.name)
    elif isinstance(document, str) and "\n" not in document and len(document) < 4096 and _is_file(document):
        path, doc = Path(document), read_file(Path(document), Path(document).name)
    elif isinstance(document, str):
        doc = parse_text(document, "#")
    if not isinstance(doc, dict):
        raise ResourceImportError(path.name if path else "#", "the document is not a JSON or YAML object")
    if "openapi" not in doc and "swagger" in doc:
        try:
            doc = convert_swagger2(doc, path)
        except RecursionError:
            raise ResourceImportError("#", "the document is nested too deeply to import") from None
    version = str(doc.get("openapi", ""))
    if not version.startswith(("3.0", "3.1")):
        raise ResourceImportError(
            "#/openapi", f"only OpenAPI 3.0.x and 3.1.x (and Swagger 2.0) are supported, not {version!r}"
        )
    info: dict[str, Any] = doc["info"] if isinstance(doc.get("info"), dict) else {}
    title = str(info.get("title") or "API").strip() or "API"
    description = str(info.get("description") or title).strip()
    importer = Importer(doc, Refs(doc, path))
    try:
        return importer.run(
            name=name or snake(title)[:40], title=title, description=description[:2000], seed=seed
        )
    except RecursionError:
        raise ResourceImportError("#", "the document is nested too deeply to import") from None
    except (
        KeyError,
        ValueError,
        TypeError,
        AttributeError,
        IndexError,
    ) as exc:  # a bug of ours: one line still
        raise ResourceImportError(
            "#", f"the importer failed on this document ({type(exc).__name__}: {exc})"
        ) from exc


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False
