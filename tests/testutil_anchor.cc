// Keeps lakeindex_testutil non-empty while tests/util/ grows.
