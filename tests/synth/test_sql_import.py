"""SQL scripts in the SQLite, MySQL and Postgres dialects become environments: every
statement either defines state or is listed in ``ignored`` with its line, one statement the
importer cannot model never costs the others, and the seed holds together (cycles,
self-references, CHAR(n) keys, composite keys, the script's own INSERT data)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from envfactory_mcp.build import BuildResult, VerificationFailed, emit_verified
from envfactory_mcp.crud.model import ImportedEnv, ResourceImportError
from envfactory_mcp.emit.render import package_name
from envfactory_mcp.env.environment import assemble_env
from envfactory_mcp.spec import TableSpec
from envfactory_mcp.synth.resource import import_resource
from envfactory_mcp.synth.sql.script import detect_dialect, split_statements
from envfactory_mcp.synth.sqlddl import import_sql

SHOP = Path(__file__).resolve().parents[2] / "examples" / "sql" / "shop.sql"

MYSQL = """-- MySQL dump 10.13
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0;
# a hash comment; with a ; inside
DROP TABLE IF EXISTS `film`;
CREATE TABLE `language` (
  `language_id` TINYINT UNSIGNED NOT NULL AUTO_INCREMENT,
  `name` CHAR(20) NOT NULL,
  PRIMARY KEY (`language_id`)
) ENGINE=InnoDB AUTO_INCREMENT=7 DEFAULT CHARSET=utf8mb4;
CREATE TABLE `film` (
  `film_id` SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
  `title` VARCHAR(128) NOT NULL COMMENT 'The title',
  `description` TEXT,
  `release_year` YEAR DEFAULT NULL,
  `language_id` TINYINT UNSIGNED NOT NULL,
  `rental_rate` DECIMAL(4,2) NOT NULL DEFAULT '4.99',
  `length` SMALLINT UNSIGNED DEFAULT NULL,
  `rating` ENUM('G','PG','PG-13','R','NC-17') DEFAULT 'G',
  `special_features` SET('Trailers','Commentaries','Deleted Scenes'),
  `in_stock` TINYINT(1) NOT NULL DEFAULT '1',
  `poster` MEDIUMBLOB,
  `spot` GEOMETRY,
  `last_update` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (`film_id`),
  KEY `idx_title` (`title`),
  FULLTEXT KEY `idx_desc` (`description`),
  CONSTRAINT `fk_film_language` FOREIGN KEY (`language_id`) REFERENCES `language` (`language_id`) ON DELETE RESTRICT ON UPDATE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
LOCK TABLES `language` WRITE;
/*!40000 ALTER TABLE `language` DISABLE KEYS */;
INSERT INTO `language` VALUES (1,'English'),(2,'Italian'),(3,'Japanese');
UNLOCK TABLES;
DELIMITER ;;
CREATE TRIGGER `ins_film` AFTER INSERT ON `film` FOR EACH ROW BEGIN
    INSERT INTO film_text (film_id, title) VALUES (new.film_id, new.title);
  END ;;
DELIMITER ;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
"""

POSTGRES = """SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
\\connect pagila
CREATE TYPE public.mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17');
CREATE DOMAIN public.year AS integer CONSTRAINT year_check CHECK (((VALUE >= 1901) AND (VALUE <= 2155)));
CREATE FUNCTION public.last_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.last_update = CURRENT_TIMESTAMP; -- a ; inside the body
    RETURN NEW;
END $$;
CREATE SEQUENCE public.film_film_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
CREATE TABLE public.film (
    film_id integer DEFAULT nextval('public.film_film_id_seq'::regclass) NOT NULL,
    title character varying(255) NOT NULL,
    release_year public.year,
    rating public.mpaa_rating DEFAULT 'G'::public.mpaa_rating,
    special_features text[],
    fulltext tsvector NOT NULL,
    replacement_cost numeric(5,2) DEFAULT 19.99 NOT NULL,
    status text CHECK (((status)::text = ANY ((ARRAY['draft'::character varying, 'live'::character varying])::text[]))),
    poster bytea,
    meta jsonb,
    origin inet,
    last_update timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE public.film OWNER TO postgres;
CREATE TABLE public.actor (
    actor_id serial NOT NULL,
    first_name text NOT NULL,
    last_name text NOT NULL
);
CREATE TABLE public.film_actor (
    actor_id integer NOT NULL,
    film_id integer NOT NULL
);
ALTER TABLE ONLY public.film ADD CONSTRAINT film_pkey PRIMARY KEY (film_id);
ALTER TABLE ONLY public.actor ADD CONSTRAINT actor_pkey PRIMARY KEY (actor_id);
ALTER TABLE ONLY public.film ADD CONSTRAINT film_title_key UNIQUE (title);
ALTER TABLE ONLY public.film_actor ADD CONSTRAINT film_actor_pkey PRIMARY KEY (actor_id, film_id);
ALTER TABLE ONLY public.film_actor
    ADD CONSTRAINT film_actor_actor_id_fkey FOREIGN KEY (actor_id) REFERENCES public.actor(actor_id) ON DELETE RESTRICT;
ALTER TABLE ONLY public.film_actor
    ADD CONSTRAINT film_actor_film_id_fkey FOREIGN KEY (film_id) REFERENCES public.film(film_id);
COMMENT ON TABLE public.actor IS 'People who act in films.';
COMMENT ON COLUMN public.actor.last_name IS 'Family name.';
CREATE TRIGGER last_updated BEFORE UPDATE ON public.film FOR EACH ROW EXECUTE FUNCTION public.last_updated();
CREATE VIEW public.actor_names AS SELECT first_name || ' ' || last_name AS name FROM public.actor;
COPY public.actor (actor_id, first_name, last_name) FROM stdin;
1\tPenelope\tGuiness
2\tNick\tWahlberg
3\tEd\tChase
\\.
SELECT pg_catalog.setval('public.actor_actor_id_seq', 200, true);
GRANT ALL ON SCHEMA public TO PUBLIC;
"""

SQLITE = """PRAGMA foreign_keys = ON;
BEGIN TRANSACTION;
CREATE TABLE IF NOT EXISTS "staff" (
    staff_id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    manager_id INTEGER REFERENCES staff (staff_id),
    store_id INTEGER NOT NULL REFERENCES store (store_id),
    badge CHAR(6) UNIQUE,
    notes
);
CREATE TABLE store (
    store_id INTEGER NOT NULL PRIMARY KEY,
    manager_staff_id INTEGER NOT NULL UNIQUE REFERENCES staff (staff_id),
    opened DATE NOT NULL
) WITHOUT ROWID;
CREATE TABLE department (
    dept_no CHAR(4) NOT NULL PRIMARY KEY,
    dept_name VARCHAR(40) NOT NULL UNIQUE,
    budget INTEGER CHECK (budget BETWEEN 1000 AND 90000),
    floor INTEGER CHECK (floor >= 1 AND floor <= 12),
    kind TEXT CHECK (kind IN ('sales', 'support')),
    code TEXT CHECK (length(code) = 3)
);
CREATE TABLE salary (
    staff_id INTEGER NOT NULL REFERENCES staff (staff_id),
    from_date DATE NOT NULL,
    amount INTEGER NOT NULL,
    PRIMARY KEY (staff_id, from_date)
);
CREATE TRIGGER staff_touch AFTER UPDATE ON staff
BEGIN
    UPDATE staff SET name = name WHERE staff_id = NEW.staff_id;
END;
CREATE INDEX idx_salary_amount ON salary (amount);
COMMIT;
"""


def _notes(imported: ImportedEnv) -> str:
    return "\n".join(imported.notes())


def _table(imported: ImportedEnv, name: str) -> TableSpec:
    table = imported.spec.table(name)
    assert table is not None, f"{name} not imported:\n{_notes(imported)}"
    return table


def _column(table: TableSpec, name: str) -> Any:
    column = table.column(name)
    assert column is not None, f"{table.name}.{name} missing"
    return column


def _input(imported: ImportedEnv, tool: str) -> dict[str, Any]:
    spec = imported.spec.tool(tool)
    assert spec is not None, f"no tool {tool}"
    return spec.input_schema["properties"]


# --------------------------------------------------------------------------- dialects


def test_the_dialect_is_read_from_the_script() -> None:
    assert detect_dialect(MYSQL) == "mysql"
    assert detect_dialect(POSTGRES) == "postgres"
    assert detect_dialect(SQLITE) == "sqlite"
    assert detect_dialect("CREATE TABLE t (id INTEGER PRIMARY KEY);") == "sqlite"


def test_statements_split_around_comments_delimiters_and_dollar_bodies() -> None:
    mysql, _ = split_statements(MYSQL, "mysql")
    trigger = next(s for s in mysql if s.text.startswith("CREATE TRIGGER"))
    assert "INSERT INTO film_text" in trigger.text and trigger.text.rstrip().endswith("END")
    assert not any("hash comment" in s.text for s in mysql)
    assert any(s.text.startswith("SET @OLD_CHARACTER_SET_CLIENT") for s in mysql)  # /*!40101 ... */ kept
    postgres, meta = split_statements(POSTGRES, "postgres")
    function = next(s for s in postgres if s.text.startswith("CREATE FUNCTION"))
    assert "RETURN NEW;" in function.text and function.line == 6
    copy = next(s for s in postgres if s.text.startswith("COPY"))
    assert copy.data == ["1\tPenelope\tGuiness", "2\tNick\tWahlberg", "3\tEd\tChase"]
    assert [line for line, _ in meta] == [3]
    sqlite, _ = split_statements(SQLITE, "sqlite")
    assert any(s.text.startswith("CREATE TRIGGER") and s.text.endswith("END") for s in sqlite)


# --------------------------------------------------------------------------- MySQL


def test_mysql_dump_tables_types_and_skipped_statements() -> None:
    imported = import_sql(MYSQL, "films")
    film = _table(imported, "film")
    assert film.primary_key == ["film_id"]
    assert _column(film, "language_id").references == "language.language_id"
    assert _column(film, "rating").enum == ["G", "PG", "PG-13", "R", "NC-17"]
    assert _column(film, "in_stock").type == "INTEGER" and _column(film, "in_stock").check  # boolean 0/1
    assert _column(film, "title").description == "The title"
    assert film.column("spot") is None  # geometry
    create = _input(imported, "create_film")
    assert create["title"]["maxLength"] == 128
    assert create["description"]["maxLength"] == 65535  # MySQL TEXT
    assert create["release_year"]["minimum"] == 1901 and create["release_year"]["maximum"] == 2155
    assert create["rental_rate"]["maximum"] == 99.99 and create["rental_rate"]["default"] == 4.99
    assert create["length"]["minimum"] == 0 and create["length"]["maximum"] == 65535
    assert create["special_features"]["type"] in ("array", ["array", "null"])
    assert create["poster"]["format"] == "byte"  # blobs are base64 text
    assert create["in_stock"]["type"] == "boolean" and create["in_stock"]["default"] is True
    assert "last_update" not in create  # stamped by the server
    notes = _notes(imported)
    for expected in (
        "line 2: SET: a session setting",
        "line 3: SET: a session setting",
        "line 5: DROP: the environment is built from an empty database",
        "line 23: column spot of film: geometry: spatial types are not modelled",
        "ON UPDATE CURRENT_TIMESTAMP",
        "FULLTEXT index of film",
        "table options of language (ENGINE=InnoDB",
        "line 30: LOCK: table locks are not state",
        "line 31: ALTER TABLE: not modelled (ALTER TABLE `language` DISABLE KEYS)",
        "line 33: UNLOCK",
        "line 35: trigger: the tools write rows themselves",
        "SET members (Trailers, Commentaries, Deleted Scenes) are listed in the description",
    ):
        assert expected in notes, f"{expected!r} not in:\n{notes}"
    assert [r["name"] for r in imported.rows["language"]] == ["English", "Italian", "Japanese"]
    assert imported.spec.seed.generator == "importer:sql+inserts"
    assert imported.coverage.operations == 2 and imported.coverage.served == 2
    assert imported.coverage.fields == 15 and imported.coverage.fields_kept == 14


# --------------------------------------------------------------------------- Postgres


def test_postgres_dump_types_enums_domains_and_alter_table_keys() -> None:
    imported = import_sql(POSTGRES, "pagila")
    film, actor, film_actor = (_table(imported, n) for n in ("film", "actor", "film_actor"))
    assert film.primary_key == ["film_id"] and _column(film, "title").unique
    assert _column(film, "rating").enum == ["G", "PG", "PG-13", "R", "NC-17"]
    assert _column(film, "status").enum == ["draft", "live"]
    assert film.column("fulltext") is None
    assert film_actor.primary_key == ["actor_id", "film_id"]
    assert _column(film_actor, "film_id").references == "film.film_id"
    assert actor.description == "People who act in films."
    assert _column(actor, "last_name").description == "Family name."
    create = _input(imported, "create_film")
    assert (
        create["release_year"]["minimum"] == 1901 and create["release_year"]["maximum"] == 2155
    )  # the domain
    assert create["special_features"]["items"] == {"type": "string"}
    assert create["replacement_cost"]["maximum"] == 999.99
    assert create["poster"]["format"] == "byte"
    assert "type" not in create["meta"]  # jsonb: any JSON value
    assert create["rating"]["default"] == "G"
    assert "film_id" not in create and "last_update" not in create  # nextval and now()
    assert {"actor_id", "film_id"} <= set(imported.spec.tool("create_film_actor").input_schema["required"])  # type: ignore[union-attr]
    assert {"actor_id", "film_id"} <= set(_input(imported, "list_film_actors"))  # join-table filters
    notes = _notes(imported)
    for expected in (
        "line 1: SET: a session setting",
        "line 2: SELECT: a query",
        "line 3: psql meta-command",
        "line 6: function: stored code is not run",
        "line 11: sequence: new keys are numbered from the table itself",
        "column fulltext of film: tsvector: full-text search vector",
        "line 26: ALTER TABLE ... OWNER TO: ownership is not state",
        "trigger: the tools write rows themselves",
        "view: a stored query over tables",
        "GRANT: privileges are not state",
    ):
        assert expected in notes, f"{expected!r} not in:\n{notes}"
    assert [r["last_name"] for r in imported.rows["actor"][:3]] == ["Guiness", "Wahlberg", "Chase"]


# --------------------------------------------------------------------------- SQLite and seeds


def test_sqlite_schema_with_a_cycle_a_self_reference_and_char_keys_seeds_consistently() -> None:
    imported = import_sql(SQLITE, "stores")
    staff, store, department = (_table(imported, n) for n in ("staff", "store", "department"))
    assert _column(staff, "manager_id").references == "staff.staff_id"
    assert _column(staff, "store_id").references == "store.store_id"
    assert _column(store, "manager_staff_id").references == "staff.staff_id"
    assert _column(department, "kind").enum == ["sales", "support"]
    create = _input(imported, "create_department")
    assert create["budget"]["minimum"] == 1000 and create["budget"]["maximum"] == 90000
    assert create["floor"]["minimum"] == 1 and create["floor"]["maximum"] == 12
    notes = _notes(imported)
    assert "CHECK (LENGTH(code) = 3) on department is not enforced" in notes
    assert "column notes of staff has no type: kept as text" in notes
    assert "trigger: the tools write rows themselves" in notes
    rows = imported.rows
    keys = [r["dept_no"] for r in rows["department"]]
    assert all(len(k) <= 4 for k in keys) and len(set(keys)) == len(keys)  # CHAR(4) keys fit
    names = [r["dept_name"] for r in rows["department"]]
    assert len(set(names)) == len(names)  # unique
    assert all(1000 <= r["budget"] <= 90000 for r in rows["department"] if r["budget"] is not None)
    assert all(r["kind"] in ("sales", "support") for r in rows["department"] if r["kind"] is not None)
    badges = [r["badge"] for r in rows["staff"] if r["badge"] is not None]
    assert all(len(b) <= 6 for b in badges) and len(set(badges)) == len(badges)
    staff_ids = [r["staff_id"] for r in rows["staff"]]
    store_ids = [r["store_id"] for r in rows["store"]]
    assert all(r["store_id"] in store_ids for r in rows["staff"])
    assert all(r["manager_staff_id"] in staff_ids for r in rows["store"])  # the cycle is closed
    managers = [r["manager_staff_id"] for r in rows["store"]]
    assert len(set(managers)) == len(managers)  # unique references stay unique
    assert any(r["manager_id"] is not None for r in rows["staff"])
    assert all(r["manager_id"] is None or r["manager_id"] < r["staff_id"] for r in rows["staff"])
    # The seed loads: every foreign key holds (checked at COMMIT for the cycle).
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    assert "PRAGMA defer_foreign_keys = ON;" in env.seed_sql
    assert len(env.seed_state["store"]) == len(rows["store"])


def test_composite_date_keys_are_numbered_as_the_seed_has_them() -> None:
    imported = import_sql(SQLITE, "stores")
    salary = _table(imported, "salary")
    assert salary.primary_key == ["staff_id", "from_date"]
    get = imported.spec.tool("get_salary")
    assert get is not None and get.params["from_date"].entity is None  # drawn from rows, by name
    assert get.params["staff_id"].entity == "staff"
    assert get.input_schema["properties"]["from_date"]["format"] == "date"


def test_insert_data_is_the_seed_unless_turned_off() -> None:
    script = (
        "CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL, boss INTEGER REFERENCES author (id));\n"
        "CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, author_id INTEGER NOT NULL REFERENCES author (id),"
        " published BOOLEAN);\n"
        "INSERT INTO author VALUES (1, 'Le Guin', NULL), (2, 'Jemisin', 3), (3, 'Butler', NULL);\n"
        "INSERT INTO book (id, title, author_id, published) VALUES (10, 'Dispossessed', 1, 't'), (11, 'Kindred', 3, 0),"
        " (12, 'Orphan', 99, 1), (10, 'Duplicate key', 1, 1);\n"
    )
    imported = import_sql(script, "library")
    assert [r["name"] for r in imported.rows["author"][:3]] == ["Le Guin", "Jemisin", "Butler"]
    assert imported.rows["author"][1]["boss"] == 3  # points at a later row: the seed defers the check
    books = {r["id"]: r for r in imported.rows["book"]}
    assert (
        books[10]["title"] == "Dispossessed" and books[10]["published"] == 1 and books[11]["published"] == 0
    )
    assert 12 not in books  # its author is not there
    notes = _notes(imported)
    assert "data of book (4 rows): 1 rows repeat a key; 1 rows point at rows that are not kept" in notes
    assemble_env(imported.spec, imported.tools_source, imported.rows)  # the seed loads
    generated = import_sql(script, "library", use_inserts=False)
    assert generated.spec.seed.generator == "importer:sql"
    assert "data of author (1 statements) is not the seed: use_inserts is off" in _notes(generated)


def test_statements_that_cannot_be_modelled_cost_only_themselves() -> None:
    script = (
        "CREATE TABLE good (id INTEGER PRIMARY KEY, label TEXT);\n"
        "CREATE TABLE no_key (label TEXT, amount INTEGER);\n"
        "CREATE TABLE pair (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b));\n"
        "CREATE TABLE uses_pair (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, FOREIGN KEY (a, b) REFERENCES pair (a, b));\n"
        "CREATE TABLE odd (id INTEGER PRIMARY KEY, shape UNSIGNED BIG INT);\n"
        "CREATE TABLE broken (id INTEGER PRIMARY KEY, ref INTEGER REFERENCES missing (id));\n"
        "frobnicate the database;\n"
    )
    imported = import_sql(script, "mixed")
    assert {t.name for t in imported.spec.tables} == {"good", "pair", "uses_pair", "odd", "broken"}
    notes = _notes(imported)
    assert "line 2: CREATE TABLE no_key: no primary key or unique NOT NULL columns" in notes
    assert (
        "line 4: FOREIGN KEY (a, b) of uses_pair -> pair: a foreign key over several columns cannot be modelled"
        in notes
    )
    assert "line 6: FOREIGN KEY (ref) of broken -> missing: that table is not imported" in notes
    assert "line 7: FROBNICATE THE: not a table definition" in notes
    assert _column(_table(imported, "odd"), "shape").type == "INTEGER"  # SQLite's affinity rules
    assert imported.coverage.operations == 6 and imported.coverage.served == 5


def test_partitions_are_rows_of_their_parent() -> None:
    script = (
        "CREATE TABLE public.payment (payment_id integer NOT NULL, paid_on date NOT NULL, amount numeric(5,2))"
        " PARTITION BY RANGE (paid_on);\n"
        "CREATE TABLE public.payment_p2024 (payment_id integer NOT NULL, paid_on date NOT NULL, amount numeric(5,2));\n"
        "ALTER TABLE ONLY public.payment ATTACH PARTITION public.payment_p2024 FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');\n"
        "ALTER TABLE ONLY public.payment ADD CONSTRAINT payment_pkey PRIMARY KEY (paid_on, payment_id);\n"
    )
    imported = import_sql(script, "payments", dialect="postgres")
    assert [t.name for t in imported.spec.tables] == ["payment"]
    notes = _notes(imported)
    assert "line 2: CREATE TABLE payment_p2024: a partition of payment; its rows are rows of payment" in notes
    assert "line 3: ATTACH PARTITION: payment_p2024 holds rows of payment" in notes
    assert (imported.coverage.operations, imported.coverage.fields) == (1, 3)


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("DROP TABLE a;\nSET x = 1;", "line 1: no table to import: no CREATE TABLE statement"),
        (
            "CREATE TABLE a (name TEXT);",
            "line 1: no table to import: 1 CREATE TABLE statement(s), none importable (first: line 1: CREATE TABLE a: no primary key",
        ),
    ],
)
def test_a_script_with_no_table_left_is_refused_in_one_line(script: str, message: str) -> None:
    with pytest.raises(ResourceImportError) as caught:
        import_sql(script, "empty")
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_the_shop_example_keeps_its_constraints() -> None:
    imported = import_sql(SHOP.read_text(), "shop")
    customers, orders, lines = (_table(imported, n) for n in ("customers", "orders", "order_lines"))
    assert _column(customers, "email").unique and not _column(customers, "email").nullable
    assert _column(orders, "status").enum == ["pending", "paid", "shipped", "cancelled"]
    assert _column(orders, "customer_id").references == "customers.id"
    assert lines.primary_key == ["order_id", "line_no"]
    assert _column(lines, "product_sku").references == "products.sku"
    create_line = _input(imported, "create_order_line")
    assert create_line["line_no"]["maximum"] == 50 and create_line["quantity"]["minimum"] == 1
    assert "placed_at" not in _input(imported, "create_order")
    assert {"customer_id", "status"} <= set(_input(imported, "list_orders"))
    assert "ON DELETE CASCADE on customer_id" in _notes(imported)
    assert all(r["sku"].startswith("product_") for r in imported.rows["products"])


# --------------------------------------------------------------------------- served over MCP

SERVED = """CREATE TABLE actor (actor_id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(45) NOT NULL);
CREATE TABLE film (
    film_id INTEGER PRIMARY KEY AUTOINCREMENT,
    title VARCHAR(128) NOT NULL,
    rating TEXT NOT NULL DEFAULT 'G' CHECK (rating IN ('G', 'PG', 'R'))
);
CREATE TABLE film_actor (
    actor_id INTEGER NOT NULL REFERENCES actor (actor_id),
    film_id INTEGER NOT NULL REFERENCES film (film_id),
    role TEXT,
    PRIMARY KEY (actor_id, film_id)
);
INSERT INTO actor (actor_id, name) VALUES (1, 'Penelope Guiness'), (2, 'Nick Wahlberg');
"""


def _text(result: CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def _build(script: str, name: str, dest: Path) -> BuildResult:
    imported = import_sql(script, name)
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    try:
        return emit_verified(env, dest / env.spec.name)
    except VerificationFailed as exc:
        pytest.fail(f"{name} failed verification:\n" + "\n".join(exc.report.failures()))


@pytest.mark.slow  # verified in the sandbox and over stdio (~6 s)
async def test_a_schema_with_a_join_table_is_served_statefully_over_mcp(tmp_path: Path) -> None:
    result = await anyio.to_thread.run_sync(_build, SERVED, "cinema", tmp_path)
    folder = str(result.package_dir)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    server = importlib.import_module(f"{package_name('cinema')}.server").build_server()
    async with Client(server) as client:
        film = await client.call_tool("create_film", {"title": "Academy Dinosaur", "rating": "PG"})
        assert not film.is_error, film.content
        film_id = film.structured_content["film_id"]
        got = await client.call_tool("get_film", {"film_id": film_id})
        assert got.structured_content == {"film_id": film_id, "title": "Academy Dinosaur", "rating": "PG"}
        cast = await client.call_tool(
            "create_film_actor", {"actor_id": 2, "film_id": film_id, "role": "Lead"}
        )
        assert not cast.is_error, cast.content
        again = await client.call_tool("create_film_actor", {"actor_id": 2, "film_id": film_id})
        assert again.is_error and "already exists" in _text(again)
        changed = await client.call_tool(
            "update_film_actor", {"actor_id": 2, "film_id": film_id, "role": "Villain"}
        )
        assert changed.structured_content["role"] == "Villain"
        listed = await client.call_tool("list_film_actors", {"film_id": film_id})
        assert [(r["actor_id"], r["role"]) for r in listed.structured_content["items"]] == [(2, "Villain")]
        blocked = await client.call_tool("delete_film", {"film_id": film_id})
        assert blocked.is_error and "still has 1 film actor" in _text(blocked)
        removed = await client.call_tool("delete_film_actor", {"actor_id": 2, "film_id": film_id})
        assert removed.structured_content == {"actor_id": 2, "film_id": film_id, "deleted": True}
        deleted = await client.call_tool("delete_film", {"film_id": film_id})
        assert deleted.structured_content == {"film_id": film_id, "deleted": True}
        gone = await client.call_tool("get_film", {"film_id": film_id})
        assert gone.is_error and _text(gone) == f"Film {film_id} not found."
        names = await client.call_tool("list_actors", {})
        assert [a["name"] for a in names.structured_content["items"]][:2] == [
            "Penelope Guiness",
            "Nick Wahlberg",
        ]


@pytest.mark.slow  # verified in the sandbox and over stdio (~5 s)
def test_the_resource_seam_imports_sql_files(tmp_path: Path) -> None:
    path = tmp_path / "stores.sql"
    path.write_text(SQLITE)
    imported = import_resource(path, None, 0)
    assert imported.spec.name == "stores"
    _build(SQLITE, "stores", tmp_path)
