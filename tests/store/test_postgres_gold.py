"""PostgreSQL: gold checks under row-level security. An assessor records her own answers on
gold pairs (``gold`` events) and nobody else's, and never writes the gold set; the lead
records it."""

from __future__ import annotations

import pytest
from test_postgres_security import EVENT, sql_as, store_as, team, url_of  # noqa: F401 (fixture)

from poolkit.store.gold_sql import GoldSet

psycopg = pytest.importorskip("psycopg")


def test_an_assessor_answers_gold_as_herself_and_only_the_lead_records_the_set(
        team, monkeypatch):  # noqa: F811
    with store_as(team, "lead", monkeypatch) as store:
        store.replace_gold(GoldSet("gold.qrels", "0" * 64, 0.1, 0),
                           [("q1", "d1", 2, "Title", "Body")])
        store.replace_gold(GoldSet("gold.qrels", "1" * 64, 0.2, 1),
                           [("q1", "d2", 1, "Title 2", "Body 2")])
        assert [(g.qid, g.docid, g.grade) for g in store.gold_pairs()] == [("q1", "d2", 1)]
        assert store.gold_set().rate == 0.2
    with sql_as(team, "alice") as conn:
        conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd2', %s, 'gold', 1, 't')",
                     (team["alice"],))
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level"):
            conn.execute(f"INSERT INTO events {EVENT} VALUES ('q1', 'd2', %s, 'gold', 1, 't')",
                         (team["bob"],))
        for sql in ("INSERT INTO gold_sets (gset, made_at, path, sha256, rate, seed) VALUES "
                    "(9, 't', 'p', 's', 0.5, 0)", "DELETE FROM gold_pairs",
                    "UPDATE gold_pairs SET grade = 3"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # gold is no open book
            conn.execute("SELECT grade FROM gold_pairs")
    with store_as(team, "alice", monkeypatch) as store:  # which pairs are gold, she reads
        assert list(store.gold_queue()) == [("q1", "d2")]


def test_an_assessor_s_status_says_gold_is_the_lead_s(team, tmp_path, monkeypatch,  # noqa: F811
                                                      capsys):
    import json

    import jsonschema
    from test_postgres_security import _config

    from poolkit.cli import main
    from poolkit.schemas import load_schema

    with store_as(team, "lead", monkeypatch) as store:
        store.replace_gold(GoldSet("gold.qrels", "0" * 64, 0.1, 0), [("q1", "d1", 2, "T", "B")])
    monkeypatch.setenv("PGPASSWORD", "pw-alice")
    config = _config(tmp_path, url_of(team, "alice"))
    capsys.readouterr()
    assert main(["status", config, "--format", "json"]) == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("status"))
    assert doc["gold_set"] == {"gold_set": 1, "pairs": 1, "rate": 0.1, "seed": 0,
                               "hidden": True}  # nor the file's name
    assert all("gold" not in cell for cell in doc["assessors"].values())
