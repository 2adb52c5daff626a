"""SQL as vendors ship it (issue 27): SQL*Plus and psql client commands are skipped,
``CREATE SCHEMA ... CREATE TABLE ...`` is read element by element, a schema kept in several
files (tables, keys, data) is one schema, and a column that is both an enum CHECK and a
foreign key is seeded with values that satisfy both. The scripts here are hand-made in
the style of Oracle's sample schemas, psql installers and schemas split across files."""

from __future__ import annotations

from pathlib import Path

import pytest

from envfactory_mcp.crud.model import ResourceImportError
from envfactory_mcp.env import assemble_env
from envfactory_mcp.synth.resource import import_resource
from envfactory_mcp.synth.sql.script import detect_dialect, split_statements
from envfactory_mcp.synth.sqlddl import import_sql

SQLPLUS = """\
rem
rem  shop_create.sql - creates the SHOP schema
rem
SET FEEDBACK 1
SET ECHO OFF
SPOOL shop_create.log
WHENEVER SQLERROR EXIT
Prompt ******  Creating REGIONS table ....

CREATE TABLE regions
    ( region_id      NUMBER
       CONSTRAINT  region_id_nn NOT NULL
    , region_name    VARCHAR2(25)
    );

ALTER TABLE regions
ADD ( CONSTRAINT reg_id_pk
             PRIMARY KEY (region_id)
    ) ;

CREATE TABLE shops
    ( shop_id      NUMBER(6)
    , shop_name    VARCHAR2(40) CONSTRAINT shop_name_nn NOT NULL
    , region_id    NUMBER
    , opened       DATE
    , CONSTRAINT shop_pk PRIMARY KEY (shop_id)
    )
    ORGANIZATION INDEX;

ALTER TABLE shops
ADD ( CONSTRAINT shop_reg_fk
             FOREIGN KEY (region_id)
              REFERENCES regions(region_id)
    ) ;

CREATE OR REPLACE PROCEDURE open_shop
  (p_id shops.shop_id%type)
IS
BEGIN
  UPDATE shops SET opened = SYSDATE WHERE shop_id = p_id;
END open_shop;
/

Prompt ****** Populating REGIONS table ....

BEGIN
  INSERT INTO regions VALUES ( 10 , 'Europe' );
  INSERT INTO regions VALUES ( 20 , 'Americas' );
  INSERT INTO shops VALUES ( 1, 'Harbour St', 10, TO_DATE('17-06-2003', 'dd-MM-yyyy') );
  COMMIT;
END;
/
EXEC dbms_stats.gather_schema_stats('SHOP');
@shop_code.sql
SPOOL OFF
"""

PSQL = """\
\\set ON_ERROR_STOP 1
\\pset tuples_only on
CREATE EXTENSION IF NOT EXISTS "uuid-ossp";
CREATE SCHEMA Person
  CREATE TABLE Person(
    PersonID SERIAL,
    FirstName varchar(50) NOT NULL,
    CONSTRAINT "PK_Person" PRIMARY KEY (PersonID)
  )
  CREATE TABLE EmailAddress(
    EmailAddressID SERIAL PRIMARY KEY,
    PersonID INT NOT NULL REFERENCES Person(PersonID),
    Email varchar(50) -- 'a;b' is a string, not the end
  )
  CREATE VIEW vPerson AS SELECT * FROM Person
  GRANT SELECT ON Person TO reporting;
\\copy Person.Person FROM './Person.csv' DELIMITER E'\\t' CSV
COMMENT ON TABLE Person.Person IS 'People';
"""


def test_sqlplus_lines_are_client_commands_and_plsql_blocks_end_at_their_slash():
    assert detect_dialect(SQLPLUS) == "oracle"
    statements, client = split_statements(SQLPLUS, "oracle")
    heads = [" ".join(st.words(3)) for st in statements]
    assert heads[:4] == [
        "CREATE TABLE REGIONS",
        "ALTER TABLE REGIONS",
        "CREATE TABLE SHOPS",
        "ALTER TABLE SHOPS",
    ]
    assert heads[4].startswith("CREATE OR REPLACE") and statements[4].text.rstrip().endswith("END open_shop;")
    # the anonymous block that loads the data is its statements
    assert heads[5:] == ["INSERT INTO REGIONS", "INSERT INTO REGIONS", "INSERT INTO SHOPS", "COMMIT"]
    assert [st.line for st in statements[5:8]] == [47, 48, 49]
    reasons = {line: why for line, why in client}
    assert set(reasons) == {4, 5, 6, 7, 8, 44, 53, 54, 55}  # REM lines are comments: not listed
    assert all("SQL*Plus command" in why for why in reasons.values())


def test_an_oracle_script_imports_with_its_keys_and_data():
    imported = import_sql(SQLPLUS, "shop")
    assert {t.name for t in imported.spec.tables} == {"regions", "shops"}
    shops = imported.spec.table("shops")
    assert shops is not None and shops.column("region_id").references == "regions.region_id"  # type: ignore[union-attr]
    assert imported.rows["regions"][:2] == [
        {"region_id": 10, "region_name": "Europe"},
        {"region_id": 20, "region_name": "Americas"},
    ]
    assert imported.rows["shops"][0]["opened"] == "2003-06-17"
    lines = {i.where for i in imported.ignored if "SQL*Plus" in i.reason}
    assert {"line 4", "line 44", "line 54"} <= lines
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    assert env is not None


def test_create_schema_elements_are_statements_of_their_own():
    statements, client = split_statements(PSQL, "postgres")
    heads = [" ".join(st.words(3)) for st in statements]
    assert heads[:6] == [
        "CREATE EXTENSION IF",
        "CREATE SCHEMA PERSON",
        "CREATE TABLE PERSON",
        "CREATE TABLE EMAILADDRESS",
        "CREATE VIEW VPERSON",
        "GRANT SELECT ON",
    ]
    assert [st.line for st in statements[1:6]] == [4, 5, 10, 15, 16]
    assert [line for line, _ in client] == [1, 2, 17]
    imported = import_sql(PSQL, "people")
    assert {t.name for t in imported.spec.tables} == {"person", "email_address"}
    email = imported.spec.table("email_address")
    assert email is not None and email.column("person_id").references == "person.person_id"  # type: ignore[union-attr]
    assert imported.spec.table("person").description == "People"  # type: ignore[union-attr]


FILES = {
    "1_tables.sql": """
        CREATE TABLE authors (id INTEGER NOT NULL, name VARCHAR(80) NOT NULL);
        CREATE TABLE books (id INTEGER NOT NULL, title VARCHAR(200) NOT NULL, author_id INTEGER);
    """,
    "2_keys.sql": """
        ALTER TABLE authors ADD CONSTRAINT authors_pk PRIMARY KEY (id);
        ALTER TABLE books ADD CONSTRAINT books_pk PRIMARY KEY (id);
        ALTER TABLE books ADD CONSTRAINT books_author_fk FOREIGN KEY (author_id) REFERENCES authors (id);
        CREATE INDEX books_title ON books (title);
    """,
    "3_data.sql": """
        INSERT INTO authors VALUES (1, 'Ursula K. Le Guin');
        INSERT INTO books VALUES (1, 'The Dispossessed', 1);
        INSERT INTO books VALUES (2, 'Orphan', 9);
    """,
}


def _files(folder: Path) -> list[Path]:
    paths = []
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(folder / name)
    return paths


def _check_library(imported) -> None:
    assert {t.name for t in imported.spec.tables} == {"authors", "books"}
    books = imported.spec.table("books")
    assert books.column("author_id").references == "authors.id"
    assert [r["title"] for r in imported.rows["books"]][:1] == ["The Dispossessed"]
    orphan = next(r for r in imported.rows["books"] if r["title"] == "Orphan")
    assert orphan["author_id"] is None  # it pointed at no author
    wheres = {i.where for i in imported.ignored}
    assert "2_keys.sql line 5" in wheres and "3_data.sql line 3" in wheres


def test_a_schema_kept_in_several_files_is_one_schema_in_any_order(tmp_path: Path):
    paths = _files(tmp_path)
    _check_library(import_resource(tmp_path))  # a folder: its .sql files in name order
    _check_library(import_resource(list(reversed(paths))))  # keys and data before the tables
    assert import_resource(tmp_path).spec.name == tmp_path.name.lower().replace("-", "_")


def test_several_files_that_cannot_be_one_schema_are_one_line_errors(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResourceImportError, match=r"has no \.sql file"):
        import_resource(tmp_path / "empty")
    (tmp_path / "a.sql").write_text("CREATE TABLE a (id INTEGER PRIMARY KEY);", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("openapi: 3.0.0", encoding="utf-8")
    with pytest.raises(ResourceImportError, match=r"only when all are \.sql"):
        import_resource([tmp_path / "a.sql", tmp_path / "b.yaml"])
    (tmp_path / "views").mkdir()
    (tmp_path / "views" / "v.sql").write_text("CREATE VIEW v AS SELECT 1;", encoding="utf-8")
    (tmp_path / "views" / "w.sql").write_text("SELECT 2;", encoding="utf-8")
    with pytest.raises(ResourceImportError) as caught:
        import_resource(tmp_path / "views")
    assert caught.value.where == str(tmp_path / "views") and "no table to import" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("given", [False, True], ids=["generated", "from_the_script"])
def test_a_column_that_is_an_enum_and_a_foreign_key_is_seeded_to_satisfy_both(given: bool):
    ddl = """
        CREATE TABLE ticket_status (code VARCHAR(10) PRIMARY KEY, label TEXT NOT NULL);
        CREATE TABLE tickets (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            status VARCHAR(10) NOT NULL CHECK (status IN ('open', 'closed', 'held'))
                REFERENCES ticket_status (code)
        );
    """
    if given:
        ddl += """
        INSERT INTO ticket_status VALUES ('open', 'Open'), ('closed', 'Closed'), ('held', 'On hold'), ('x', 'Old');
        INSERT INTO tickets VALUES (1, 'Printer', 'open'), (2, 'Wifi', 'held');
        """
    imported = import_sql(ddl, "tickets")
    column = imported.spec.table("tickets").column("status")  # type: ignore[union-attr]
    assert column.enum == ["open", "closed", "held"] and column.references == "ticket_status.code"  # type: ignore[union-attr]
    codes = {row["code"] for row in imported.rows["ticket_status"]}
    assert {"open", "closed", "held"} <= codes
    assert imported.rows["tickets"] and all(
        row["status"] in {"open", "closed", "held"} for row in imported.rows["tickets"]
    )
    if given:
        assert [row["status"] for row in imported.rows["tickets"][:2]] == ["open", "held"]
    # the seed image is built with the CHECK and the foreign key enforced
    assemble_env(imported.spec, imported.tools_source, imported.rows)
