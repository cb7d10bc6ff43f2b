"""Not run: mypy checks it (python.test_typing) as a user's script of the public API, so that the
annotations say what the API gives."""

from typing import Any, Dict, List

import numpy as np

import lakeindex


def use(path: str) -> None:
    version: str = lakeindex.__version__
    t: lakeindex.Table = lakeindex.Table.create(path, {"k": np.arange(10)}, rows_per_file=5)
    t = t.append({"k": np.arange(3)}).create_index("k", kind="btree")
    deleted: int = t.delete("k = 1")
    rows: int = t.count("k > 2")
    columns: Dict[str, Any] = t.query(where="k > 2", select=["k"], limit=3)
    history: List[Dict[str, Any]] = t.versions()
    newest: int = lakeindex.Table.open(path).version
    for batch in t.scan(select="k"):
        print(batch)
    try:
        lakeindex.Table.open(path + "-missing")
    except lakeindex.NotFound as e:
        message: str = str(e)
        print(message)
    print(version, deleted, rows, columns, history, newest, t.schema, t.path, t.stats()["rows"])
    with lakeindex.Table.open(path) as opened:
        live: int = len(opened)
        names: List[str] = opened.schema.names
        first: lakeindex.Field = opened.schema[0]
        indexes: List[Dict[str, Any]] = opened.indexes()
        built: int = opened.update_index(merge=True)
        lines: List[str] = opened.verify()
        cleaned: Dict[str, List[Any]] = opened.vacuum(keep_versions=2)
        laid: Dict[str, int] = opened.layout_hilbert(["k"])
        print(live, names, first.type, indexes, built, lines, cleaned, laid)
    left: int = lakeindex.Table.recover(path, accept_lost_version=3)
    print(left, isinstance(OSError(), lakeindex.IOError))
