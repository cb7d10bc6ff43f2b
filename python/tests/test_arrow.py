"""Table.query(output="arrow"): the PyCapsule protocol's Arrow C stream, read by a consumer
written here from the Arrow C data and stream interface specification (ctypes structs of
ArrowSchema / ArrowArray / ArrowArrayStream, values from the buffers by the spec's layouts) —
no Arrow library is involved — and compared with the numpy results of the same queries."""

import ctypes
import unittest

import numpy as np

import lakeindex
from util import Workdir, gen_events


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))), ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))), ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64), ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))), ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))), ("private_data", ctypes.c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))), ("private_data", ctypes.c_void_p)]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# Fixed-width formats: (the buffer's element type, the numpy type the values are compared as).
FIXED = {"i": (np.int32, None), "l": (np.int64, None), "f": (np.float32, None), "g": (np.float64, None),
         "tdD": (np.int32, "datetime64[D]"), "tsu:": (np.int64, "datetime64[us]")}


def take_stream(obj):
    """Moves the ArrowArrayStream out of obj's capsule, as the protocol tells consumers to."""
    capsule = obj.__arrow_c_stream__()
    pointer = _get_pointer(capsule, b"arrow_array_stream")
    stream = ArrowArrayStream()
    ctypes.memmove(ctypes.addressof(stream), pointer, ctypes.sizeof(ArrowArrayStream))
    ArrowArrayStream.from_address(pointer).release = ArrowArrayStream._fields_[3][1]()  # NULL: moved
    return stream


def bits(address, offset, length):
    raw = np.frombuffer(ctypes.string_at(address, (offset + length + 7) // 8), np.uint8)
    return np.unpackbits(raw, bitorder="little")[offset:offset + length].astype(bool)


def column_values(array, fmt):
    """(values, valid) of a child array: numpy values and a validity mask."""
    n, off = array.length, array.offset
    valid = np.ones(n, bool) if not array.buffers[0] else bits(array.buffers[0], off, n)
    if fmt == "b":
        return bits(array.buffers[1], off, n), valid
    if fmt == "u":
        offsets = np.frombuffer(ctypes.string_at(array.buffers[1], 4 * (off + n + 1)), np.int32)[off:]
        data = ctypes.string_at(array.buffers[2], int(offsets[-1])) if offsets[-1] > 0 else b""
        return [data[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n)], valid
    element, as_type = FIXED[fmt]
    dtype = np.dtype(element)
    raw = ctypes.string_at(array.buffers[1], dtype.itemsize * (off + n))
    values = np.frombuffer(raw, dtype)[off:]
    return (values.astype(as_type) if as_type else values), valid


def consume(obj):
    """(formats, names, {name: (list of values, valid)}, batches) of an Arrow stream object."""
    stream = take_stream(obj)
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    assert schema.format == b"+s"
    names = [schema.children[i].contents.name.decode() for i in range(schema.n_children)]
    formats = [schema.children[i].contents.format.decode() for i in range(schema.n_children)]
    schema.release(ctypes.byref(schema))
    assert not schema.release, "release marks the schema released"
    out = {n: ([], []) for n in names}
    batches = 0
    while True:
        array = ArrowArray()
        rc = stream.get_next(ctypes.byref(stream), ctypes.byref(array))
        if rc != 0:
            message = stream.get_last_error(ctypes.byref(stream))
            stream.release(ctypes.byref(stream))
            raise RuntimeError(f"get_next: {rc}: {message}")
        if not array.release:
            break
        batches += 1
        assert array.n_children == len(names)
        for i, name in enumerate(names):
            values, valid = column_values(array.children[i].contents, formats[i])
            out[name][0].extend(list(values))
            out[name][1].extend(list(valid))
        array.release(ctypes.byref(array))
    stream.release(ctypes.byref(stream))
    return formats, names, out, batches


def expect_equal(test, got, want, name):
    values, valid = got
    mask = np.ma.getmaskarray(want)
    if want.dtype == object:  # strings: None is NULL
        mask = mask | np.array([v is None for v in np.ma.getdata(want)], dtype=bool)
    test.assertEqual(len(values), len(want), name)
    differ = np.flatnonzero((~mask) != np.asarray(valid, dtype=bool))
    test.assertEqual(len(differ), 0, f"{name}: NULL in one and not the other at rows {differ[:5]}")
    data = np.ma.getdata(want)
    for i in np.flatnonzero(~mask):
        a, b = values[i], data[i]
        same = (a == b) or (isinstance(b, float) and np.isnan(a) and np.isnan(b))
        test.assertTrue(same, f"{name} row {i}: {a!r} != {b!r}")


class ArrowStreamTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Workdir()
        cls.events = lakeindex.Table.create(cls.dir.join("events"), gen_events(cls.dir.join("e.parquet"), 30000),
                                            rows_per_file=10000)
        n = 1000
        mask = np.arange(n) % 7 == 3
        cls.kinds = lakeindex.Table.create(cls.dir.join("kinds"), {
            "flag": np.ma.array(np.arange(n) % 3 == 0, mask=mask),
            "small": np.ma.array(np.arange(n, dtype=np.int32) - 500, mask=mask),
            "big": np.arange(n, dtype=np.int64) * 10_000_000_000,
            "ratio": np.ma.array(np.arange(n, dtype=np.float32) / 4, mask=np.arange(n) % 5 == 0),
            "value": np.where(np.arange(n) == 9, np.nan, np.arange(n) * 0.5),
            "day": np.arange(n).astype("datetime64[D]") - 300,
            "ts": np.ma.array((np.arange(n) * 1_000_003).astype("datetime64[us]"), mask=mask),
            "label": np.array([None if i % 11 == 0 else f"r{i}·é" for i in range(n)], dtype=object),
        })

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def check_query(self, table, **query):
        stream = table.query(output="arrow", **query)
        self.assertIsInstance(stream, lakeindex.ArrowStream)
        formats, names, got, batches = consume(stream)
        want = table.query(**query)
        self.assertEqual(names, list(want))
        self.assertEqual(stream.names, names)
        for name in names:
            expect_equal(self, got[name], want[name], name)
        return formats, batches

    def test_every_type_and_null_as_the_numpy_result(self):
        formats, batches = self.check_query(self.kinds)
        self.assertEqual(formats, ["b", "i", "l", "f", "g", "tdD", "tsu:", "u"])
        self.assertGreaterEqual(batches, 1)

    def test_a_filtered_multi_file_query_streams_batch_by_batch(self):
        _, batches = self.check_query(self.events, where="score > 50 AND x < 70", select=["id", "name", "ts", "score"])
        self.assertGreaterEqual(batches, 3, "three files of 10,000 rows: one batch or more each")
        self.check_query(self.events, where="id < 0")  # empty: the schema alone
        self.check_query(self.events, order_by="score desc", limit=25, select="id,score")

    def test_a_stream_is_taken_once_and_its_schema_alone(self):
        stream = self.kinds.query(output="arrow", select="small,label")
        capsule = stream.__arrow_c_schema__()
        schema = ArrowSchema.from_address(_get_pointer(capsule, b"arrow_schema"))
        self.assertEqual([schema.children[i].contents.format for i in range(schema.n_children)], [b"i", b"u"])
        del capsule  # released by its destructor
        consume(stream)
        with self.assertRaises(lakeindex.InvalidArgument):
            stream.__arrow_c_stream__()
        self.kinds.query(output="arrow").__arrow_c_stream__()  # dropped unconsumed: freed, no leak
        with self.assertRaises(lakeindex.InvalidArgument):
            self.kinds.query(output="feather")


class ArrowInputTest(unittest.TestCase):
    """Tables created and appended from an object with `__arrow_c_stream__` (here our own
    ArrowStream: pyarrow and Polars are not installable on this machine; the C++ ArrowImportTest
    covers the formats they write)."""

    @classmethod
    def setUpClass(cls):
        cls.dir = Workdir()
        cls.events = lakeindex.Table.create(cls.dir.join("events"), gen_events(cls.dir.join("e.parquet"), 20000),
                                            rows_per_file=7000)

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def test_create_and_append_from_an_arrow_stream_keep_every_row(self):
        copy = lakeindex.Table.create(self.dir.join("copy"), self.events.query(output="arrow"), rows_per_file=5000)
        self.assertEqual(copy.schema, self.events.schema)
        self.assertEqual(copy.count(), 20000)
        self.assertGreaterEqual(len(copy.files()), 4, "rows_per_file applies")
        copy.append(self.events.query(where="id < 100", output="arrow"))
        self.assertEqual(copy.count(), 20100)
        ids = np.sort(np.asarray(copy.query(select="id")["id"]))
        want = np.sort(np.concatenate([np.asarray(self.events.query(select="id")["id"]),
                                       np.asarray(self.events.query(where="id < 100", select="id")["id"])]))
        self.assertTrue(np.array_equal(ids, want))
        both = copy.aggregate("count(*), sum(score), count(maybe)", group_by=None)
        one = self.events.aggregate("count(*), sum(score), count(maybe)")
        extra = self.events.aggregate("count(*), sum(score), count(maybe)", where="id < 100")
        for key in ("count(*)", "sum(score)", "count(maybe)"):
            self.assertEqual(int(both[key][0]), int(one[key][0]) + int(extra[key][0]), key)
        with self.assertRaises(lakeindex.InvalidArgument):
            lakeindex.Table.create(self.dir.join("bad"), self.events.query(output="arrow"), schema="id:int64")


if __name__ == "__main__":
    unittest.main()
