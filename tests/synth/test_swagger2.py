"""Swagger 2.0 documents are imported directly: converted to OpenAPI 3.0 in Python
(``synth/swagger2.py``), then read by the OpenAPI importer (issue 27).

``swagger2/shelter.yaml`` is hand-made in the style of published Swagger 2.0 APIs (body,
formData, path-level and shared parameters, a parameter file beside it, collectionFormat,
x-nullable, a discriminator, three kinds of security definition). Public Swagger 2.0
documents in ``../shared/corpus`` are imported by ``test_corpus.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from envfactory_mcp.crud.model import ResourceImportError
from envfactory_mcp.env import assemble_env
from envfactory_mcp.runtime import ServerOptions, create_server
from envfactory_mcp.synth.openapi import import_openapi
from envfactory_mcp.synth.openapi.documents import read_file
from envfactory_mcp.synth.resource import import_resource
from envfactory_mcp.synth.swagger2 import convert_swagger2, is_swagger2

SHELTER = Path(__file__).parent / "swagger2" / "shelter.yaml"


def _converted() -> dict[str, Any]:
    return convert_swagger2(read_file(SHELTER, SHELTER.name), SHELTER)


def test_the_document_level_parts_become_servers_components_and_security_schemes():
    doc = _converted()
    assert doc["openapi"] == "3.0.3" and doc["info"]["title"] == "Animal shelter"
    assert doc["servers"] == [
        {"url": "https://shelter.example.org/api/v1"},
        {"url": "http://shelter.example.org/api/v1"},
    ]
    components = doc["components"]
    assert set(components["schemas"]) == {"Problem", "NewAnimal", "Animal", "Photo", "Adopter"}
    assert components["schemas"]["Animal"]["allOf"][0] == {"$ref": "#/components/schemas/NewAnimal"}
    new_animal = components["schemas"]["NewAnimal"]
    assert new_animal["discriminator"] == {"propertyName": "species"}
    assert new_animal["properties"]["born"] == {"type": "string", "format": "date", "nullable": True}
    assert components["schemas"]["Photo"]["properties"]["content"] == {"type": "string", "format": "binary"}
    assert components["responses"]["NotFound"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Problem"
    }
    assert components["securitySchemes"] == {
        "key": {"type": "apiKey", "name": "X-Api-Key", "in": "header"},
        "oauth": {
            "type": "oauth2",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "https://shelter.example.org/oauth/authorize",
                    "tokenUrl": "https://shelter.example.org/oauth/token",
                    "scopes": {"animals:write": "change animals"},
                }
            },
        },
        "basicAuth": {"type": "http", "scheme": "basic"},
    }
    assert doc["security"] == [{"key": []}]
    assert "definitions" not in doc and "securityDefinitions" not in doc and "swagger" not in doc


def test_parameters_bodies_and_responses_take_their_openapi_3_form():
    paths = _converted()["paths"]
    listing = paths["/animals"]["get"]
    limit, species = listing["parameters"]
    # a shared parameter kept in another file, followed and inlined
    assert limit == {
        "name": "limit",
        "in": "query",
        "description": "at most this many",
        "schema": {"type": "integer", "default": 20, "maximum": 100, "minimum": 1},
    }
    assert species["schema"]["items"]["enum"] == ["cat", "dog", "rabbit"]
    assert (species["style"], species["explode"]) == ("form", True)  # collectionFormat: multi
    ok = listing["responses"]["200"]
    assert ok["headers"]["X-Total-Count"] == {
        "description": "how many there are",
        "schema": {"type": "integer"},
    }
    assert ok["content"]["application/json"]["schema"]["items"] == {"$ref": "#/components/schemas/Animal"}

    create = paths["/animals"]["post"]
    assert create["requestBody"] == {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewAnimal"}}},
        "required": True,
        "x-bodyName": "animal",
    }
    assert create["responses"]["201"]["content"]["application/json"]["example"]["name"] == "Tom"

    item = paths["/animals/{animalId}"]
    assert item["parameters"][0]["required"] is True and item["parameters"][0]["schema"]["format"] == "int64"
    assert item["get"]["responses"]["404"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Problem"
    }
    form = item["post"]["requestBody"]["content"]
    assert list(form) == ["application/x-www-form-urlencoded"]
    assert form["application/x-www-form-urlencoded"]["schema"]["properties"]["status"]["enum"] == [
        "available",
        "pending",
        "adopted",
    ]
    upload = paths["/animals/{animalId}/photo"]["post"]
    multipart = upload["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert multipart["properties"]["file"] == {"type": "string", "format": "binary"}
    assert multipart["required"] == ["file"] and upload["requestBody"]["required"] is True
    ids, names = paths["/adopters"]["get"]["parameters"]
    assert (ids["style"], ids["explode"]) == ("form", False)  # csv
    assert names["style"] == "pipeDelimited"
    for operation in (op for item in paths.values() for op in item.values() if isinstance(op, dict)):
        assert not {"consumes", "produces"} & set(operation)
        assert all(p.get("in") not in ("body", "formData") for p in operation.get("parameters", []))


def test_the_converted_document_is_valid_openapi_3():
    validator = pytest.importorskip("openapi_spec_validator")
    errors = list(validator.OpenAPIV30SpecValidator(_converted(), base_uri=SHELTER.as_uri()).iter_errors())
    assert not errors, [str(e).splitlines()[0] for e in errors[:5]]


def test_path_level_body_parameters_go_to_every_operation_unless_one_has_its_own():
    doc: dict[str, Any] = {
        "swagger": "2.0",
        "info": {"title": "Notes", "version": "1"},
        "consumes": ["application/json", "application/xml"],
        "paths": {
            "/notes/{id}": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "type": "string"},
                    {"name": "note", "in": "body", "schema": {"type": "object"}},
                ],
                "put": {"responses": {"200": {"description": "ok"}}},
                "patch": {
                    "parameters": [{"name": "note", "in": "body", "schema": {"type": "array"}}],
                    "responses": {"200": {"description": "ok"}},
                },
            }
        },
    }
    item = convert_swagger2(doc)["paths"]["/notes/{id}"]
    assert [p["name"] for p in item["parameters"]] == ["id"]
    assert list(item["put"]["requestBody"]["content"]) == ["application/json", "application/xml"]
    assert item["put"]["requestBody"]["content"]["application/json"]["schema"] == {"type": "object"}
    assert item["patch"]["requestBody"]["content"]["application/json"]["schema"] == {"type": "array"}
    assert doc["paths"]["/notes/{id}"]["parameters"][1]["in"] == "body", "the input is not changed"
    assert convert_swagger2({"swagger": "2.0", "basePath": "/v2/", "paths": {}})["servers"] == [
        {"url": "/v2"}
    ]


def test_refs_written_in_other_files_resolve_from_the_root_after_conversion(tmp_path: Path):
    (tmp_path / "api").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "models.json").write_text(
        json.dumps(
            {
                "Book": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "title": {"type": "string"},
                        "author": {"$ref": "#/Author"},
                    },
                },
                "Author": {"type": "object", "properties": {"name": {"type": "string"}}},
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "shared" / "parts.json").write_text(
        json.dumps(
            {
                "bookBody": {
                    "name": "book",
                    "in": "body",
                    "required": True,
                    "schema": {"$ref": "models.json#/Book"},
                },
                "bookResponse": {"description": "a book", "schema": {"$ref": "models.json#/Book"}},
                "idParam": {"$ref": "#/realId"},
                "realId": {"name": "bookId", "in": "path", "required": True, "type": "integer"},
            }
        ),
        encoding="utf-8",
    )
    root = tmp_path / "api" / "swagger.json"
    root.write_text(
        json.dumps(
            {
                "swagger": "2.0",
                "info": {"title": "Books", "version": "1"},
                "paths": {
                    "/books": {
                        "post": {
                            "parameters": [{"$ref": "../shared/parts.json#/bookBody"}],
                            "responses": {"201": {"$ref": "../shared/parts.json#/bookResponse"}},
                        },
                        "get": {
                            "responses": {
                                "200": {
                                    "description": "books",
                                    "schema": {
                                        "type": "array",
                                        "items": {"$ref": "../shared/models.json#/Book"},
                                    },
                                }
                            }
                        },
                    },
                    "/books/{bookId}": {
                        "parameters": [{"$ref": "../shared/parts.json#/idParam"}],
                        "get": {"responses": {"200": {"$ref": "../shared/parts.json#/bookResponse"}}},
                        "delete": {"responses": {"204": {"description": "gone"}}},
                    },
                },
            }
        ),
        encoding="utf-8",
    )
    converted = convert_swagger2(json.loads(root.read_text(encoding="utf-8")), root)
    post = converted["paths"]["/books"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "../shared/models.json#/Book"
    }
    assert post["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": "../shared/models.json#/Book"
    }
    assert converted["paths"]["/books/{bookId}"]["parameters"][0]["name"] == "bookId"
    imported = import_resource(root)
    assert {t.name for t in imported.spec.tools} >= {"create_book", "list_books", "get_book", "delete_book"}
    books = imported.spec.table("books")
    assert books is not None and books.column("title") is not None and books.column("author_name") is not None


@pytest.mark.parametrize(
    ("document", "where", "words"),
    [
        (
            {
                "swagger": "2.0",
                "paths": {"/a": {"get": {"parameters": [{"$ref": "#/parameters/a"}]}}},
                "parameters": {"a": {"$ref": "#/parameters/b"}, "b": {"$ref": "#/parameters/a"}},
            },
            "#/paths/~1a/get/parameters",
            "$ref loop",
        ),
        (
            {"swagger": "2.0", "paths": {"/a": {"get": {"parameters": [{"$ref": "#/parameters/none"}]}}}},
            "#/paths/~1a/get/parameters",
            "points at nothing",
        ),
        (
            {"swagger": "2.0", "paths": {"/a": {"$ref": "other.yaml#/a"}}},
            "#/paths/~1a",
            "needs the document's path",
        ),
        ({"swagger": "3.0", "paths": {}}, "#/swagger", "only Swagger 2.0"),
    ],
    ids=["ref_loop", "ref_to_nothing", "file_ref_without_a_path", "not_2_0"],
)
def test_what_cannot_be_converted_is_one_line_naming_the_place(
    document: dict[str, Any], where: str, words: str
):
    with pytest.raises(ResourceImportError) as caught:
        import_openapi(document)
    assert caught.value.where == where and words in str(caught.value) and "\n" not in str(caught.value)


def test_a_file_ref_to_a_missing_file_is_one_line(tmp_path: Path):
    root = tmp_path / "swagger.yaml"
    root.write_text(
        "swagger: '2.0'\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    $ref: 'paths/a.yaml'\n",
        encoding="utf-8",
    )
    with pytest.raises(ResourceImportError, match=r"#/paths/~1a: \$ref to 'paths/a.yaml': no such file"):
        import_resource(root)
    assert is_swagger2({"swagger": "2.0"}) and not is_swagger2({"openapi": "3.0.0"})


async def test_a_swagger_2_document_is_served_statefully_over_mcp():
    imported = import_resource(SHELTER)
    assert imported.coverage.operations == imported.coverage.served == 9
    env = assemble_env(imported.spec, imported.tools_source, imported.rows, load_code=True)
    with anyio.fail_after(60):
        async with Client(create_server(env.bundle(), ServerOptions())) as client:

            async def call(tool: str, arguments: dict[str, Any]) -> Any:
                result = await client.call_tool(tool, arguments)
                text = " ".join(getattr(b, "text", "") for b in result.content)
                assert not result.is_error, f"{tool}: {text}"
                return result.structured_content

            animal = await call("add_animal", {"name": "Miso", "species": "cat"})
            assert animal["status"] == "available" and isinstance(animal["id"], int)
            changed = await call("update_animal_with_form", {"animalId": animal["id"], "status": "adopted"})
            assert (changed["name"], changed["status"]) == ("Miso", "adopted")
            assert (await call("get_animal", {"animalId": animal["id"]}))["status"] == "adopted"
            cats = await call("list_animals", {"species": ["cat"]})
            assert animal["id"] in [a["id"] for a in cats["items"]]
            assert all(a["species"] == "cat" for a in cats["items"])
            await call("remove_animal", {"animalId": animal["id"]})
            gone = await client.call_tool("get_animal", {"animalId": animal["id"]})
            assert gone.is_error
