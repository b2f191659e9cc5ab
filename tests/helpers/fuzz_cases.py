"""Builders shared by the tests, from test_fuzz.py."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

from hypothesis import strategies as st

POS = st.integers(0, 1 << 16)


byte_op = st.one_of(
    st.tuples(st.just("flip"), POS, st.integers(0, 255)),
    st.tuples(st.just("insert"), POS, st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("delete"), POS, st.integers(1, 32)),
    st.tuples(st.just("truncate"), POS),
    st.tuples(st.just("repeat"), POS, st.integers(1, 64), st.integers(2, 200)),
)


def apply_bytes(data: bytes, ops: list[tuple[Any, ...]]) -> bytes:
    """Apply byte-level mutations; positions wrap around the current length."""
    buf = bytearray(data)
    for op in ops:
        pos = op[1] % (len(buf) + 1)
        if op[0] == "flip" and buf:
            buf[pos % len(buf)] = op[2]
        elif op[0] == "insert":
            buf[pos:pos] = op[2]
        elif op[0] == "delete":
            del buf[pos : pos + op[2]]
        elif op[0] == "truncate":
            del buf[pos:]
        elif op[0] == "repeat":
            buf[pos:pos] = bytes(buf[pos : pos + op[2]]) * op[3]
    return bytes(buf)


ENCODINGS = st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16", "latin-1"])


NEWLINES = st.sampled_from(["\n", "\n", "\r\n", "\r"])


def mutate_csv(text: str, ops: list[tuple[Any, ...]], newline: str, encoding: str, raw: list[tuple[Any, ...]]) -> bytes:
    """Structured edits of the '|'-separated table, then its encoding, then byte edits."""
    rows = [line.split("|") for line in text.splitlines()]
    for op in ops:
        if not rows:
            rows = [[""]]
        r = op[1] % len(rows) if op[0] not in ("swap_cols", "drop_col", "add_col", "tail") else 0
        if op[0] == "set":
            row = rows[r]
            row[op[2] % len(row)] = op[3]
        elif op[0] == "drop_row":
            del rows[r]
        elif op[0] == "dup_row":
            rows[r + 1 : r + 1] = [list(rows[r]) for _ in range(op[2])]
        elif op[0] == "swap_cols":
            for row in rows:
                i, j = op[1] % len(row), op[2] % len(row)
                row[i], row[j] = row[j], row[i]
        elif op[0] == "drop_col":
            for row in rows:
                if len(row) > 1:
                    del row[op[1] % len(row)]
        elif op[0] == "add_col":
            for row in rows:
                row.insert(op[1] % (len(row) + 1), op[2])
        elif op[0] == "raw_line":
            rows.insert(r, [op[2]])
        elif op[0] == "tail":
            rows.extend([op[1]] for _ in range(op[2]))
    text = "".join("|".join(row) + newline for row in rows)
    return apply_bytes(text.encode(encoding, errors="replace"), raw)


def chunk(kind: bytes, data: bytes, crc_ok: bool = True) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc if crc_ok else crc ^ 0x5A5A5A5A)


def split_chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    out, pos = [], 8
    while pos + 8 <= len(png):
        (n,) = struct.unpack(">I", png[pos : pos + 4])
        out.append((png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + n]))
        pos += 12 + n
    return out


DIMS = st.one_of(
    st.sampled_from([0, 1, 47, 48, 49, 63, 64, 65, 1000, 65535, 100_000, 2**31 - 1, 2**32 - 1]),
    st.integers(0, 2**32 - 1),
)


ihdr = st.fixed_dictionaries(
    {
        "width": DIMS,
        "height": DIMS,
        "depth": st.sampled_from([8, 8, 8, 0, 1, 2, 3, 4, 16, 32]),
        "colour": st.sampled_from([0, 0, 0, 1, 2, 3, 4, 5, 6, 7]),
        "compression": st.sampled_from([0, 0, 0, 1]),
        "filter": st.sampled_from([0, 0, 0, 1]),
        "interlace": st.sampled_from([0, 0, 1, 1, 2]),
    }
)


idat = st.one_of(
    st.just(("keep",)),
    st.tuples(st.just("zeros"), st.integers(0, 1_000_000)),  # a stream of that many zero bytes
    st.tuples(st.just("random"), st.binary(max_size=64)),  # not zlib at all
    st.tuples(st.just("truncate"), st.integers(0, 64)),  # a prefix of the real stream
    st.tuples(st.just("filters"), st.integers(0, 255), st.integers(0, 5000)),  # rows with odd filter bytes
)


chunk_op = st.one_of(
    st.tuples(st.just("drop"), st.integers(0, 10)),
    st.tuples(st.just("dup"), st.integers(0, 10)),
    st.tuples(
        st.just("insert"),
        st.integers(0, 10),
        st.sampled_from([b"PLTE", b"tRNS", b"IDAT", b"IEND", b"IHDR", b"zzZz", b"acTL", b"gAMA", b"\x00\x00\x00\x00"]),
        st.binary(max_size=24),
    ),
    st.tuples(st.just("swap"), st.integers(0, 10), st.integers(0, 10)),
)


png_mutation = st.tuples(
    st.one_of(st.none(), ihdr),
    idat,
    st.lists(chunk_op, max_size=3),
    st.lists(st.integers(0, 10), max_size=2),  # chunks whose CRC is broken
    st.lists(byte_op, max_size=2),
)


def mutate_png(
    png: bytes,
    header: dict[str, int] | None,
    stream: tuple[Any, ...],
    ops: list[tuple[Any, ...]],
    bad_crc: list[int],
    raw: list[tuple[Any, ...]],
) -> bytes:
    chunks = split_chunks(png)
    if header is not None:
        chunks[0] = (
            b"IHDR",
            struct.pack(
                ">IIBBBBB",
                header["width"],
                header["height"],
                header["depth"],
                header["colour"],
                header["compression"],
                header["filter"],
                header["interlace"],
            ),
        )
    real = b"".join(d for k, d in chunks if k == b"IDAT")
    if stream[0] == "zeros":
        data = zlib.compress(b"\x00" * stream[1], 9)
    elif stream[0] == "random":
        data = stream[1]
    elif stream[0] == "truncate":
        data = real[: stream[1]]
    elif stream[0] == "filters":
        data = zlib.compress(bytes([stream[1]]) * stream[2], 9)
    else:
        data = real
    chunks = [c for c in chunks if c[0] != b"IDAT"]
    chunks.insert(1, (b"IDAT", data))
    for op in ops:
        i = op[1] % len(chunks) if chunks else 0
        if op[0] == "drop" and chunks:
            del chunks[i]
        elif op[0] == "dup" and chunks:
            chunks.insert(i, chunks[i])
        elif op[0] == "insert":
            chunks.insert(i, (op[2], op[3]))
        elif op[0] == "swap" and chunks:
            j = op[2] % len(chunks)
            chunks[i], chunks[j] = chunks[j], chunks[i]
    broken = {b % len(chunks) for b in bad_crc} if chunks else set()
    body = b"".join(chunk(k, d, i not in broken) for i, (k, d) in enumerate(chunks))
    return apply_bytes(b"\x89PNG\r\n\x1a\n" + body, raw)


def _walk(doc: Any, path: list[int]) -> tuple[Any, Any] | None:
    """(container, key) reached by following ``path`` (indices wrap); None for a leaf document."""
    parent: Any = None
    key: Any = None
    node = doc
    for step in path:
        if isinstance(node, dict) and node:
            parent, key = node, list(node)[step % len(node)]
        elif isinstance(node, list) and node:
            parent, key = node, step % len(node)
        else:
            break
        node = parent[key]
    return None if parent is None else (parent, key)


def mutate_json_doc(
    doc: Any, ops: list[tuple[Any, ...]], text_op: tuple[Any, ...], raw: list[tuple[Any, ...]]
) -> bytes:
    """Structural edits at wrapped paths (a value set, deleted or repeated), then text, then bytes
    (also ForgeryNet's)."""
    for op in ops:
        spot = _walk(doc, op[1])
        if op[0] == "set":
            if spot is None:
                doc = op[2]
            else:
                spot[0][spot[1]] = op[2]
        elif op[0] == "delete" and spot is not None:
            del spot[0][spot[1]]
        elif op[0] == "dup" and spot is not None and isinstance(spot[0], list):
            spot[0][spot[1] : spot[1]] = [spot[0][spot[1]]] * op[2]
    text = json.dumps(doc, indent=1)
    encoding = "utf-8"
    if text_op[0] == "duplicate-key" and text.startswith("{"):
        text = "{" + json.dumps(text_op[1]) + ": " + json.dumps(text_op[2]) + ", " + text[1:]
    elif text_op[0] == "nest":
        text = "[" * text_op[1] + text + "]" * text_op[1]
    elif text_op[0] == "encoding":
        encoding = text_op[1]
    elif text_op[0] == "long-string" and text.startswith("{"):
        text = '{"comment": "' + "x" * text_op[1] + '", ' + text[1:]
    elif text_op[0] == "number":  # a literal put in place of the first score and segment end (ForgeryNet)
        text = text.replace("0.95", text_op[1], 1).replace("2.0", text_op[1], 1)
    return apply_bytes(text.encode(encoding, errors="replace"), raw)
