"""Kaldi's serialization, text and binary (``\\0B`` header), as ``base/io-funcs``
and ``matrix/kaldi-matrix`` write it.

* tokens: ``<Tag>`` words (binary: followed by one space);
* numbers: text words; binary: one size byte then the raw little-endian value
  (``\\x04`` + int32 or float32, ``\\x08`` + float64 / int64);
* booleans: ``T`` / ``F`` (binary: one character);
* integer vectors: text ``[ 1 2 ]``; binary: size byte, int32 count, raw values;
* matrices / vectors: text ``[ ... ]`` (matrices one row per line); binary:
  token ``FM``/``DM`` (``FV``/``DV``), int32 rows and cols (dim), raw values
  -- read as numpy views of the file (float32) or converted once (float64).

:class:`KaldiStream` reads them from a buffer; every malformed input raises
:class:`KaldiFrontendError` (one line, with the byte offset).
"""

from __future__ import annotations

import numpy as np

from xmo.errors import ModelError, printable


class KaldiFrontendError(ModelError):
    """A Kaldi model the frontend cannot read (one line naming the file and offset)."""

    def __init__(self, msg: object = "") -> None:
        super().__init__(printable(str(msg)))


_WS = b" \t\n\r"


class KaldiStream:
    """A cursor over a Kaldi file's bytes (see the module docstring)."""

    def __init__(self, data: bytes, what: str) -> None:
        self.buf = data
        self.what = what
        self.binary = self.buf[:2] == b"\0B"
        self.pos = 2 if self.binary else 0

    # -- errors -------------------------------------------------------------------------
    def error(self, msg: str) -> KaldiFrontendError:
        return KaldiFrontendError(f"{self.what}: {msg} (at byte {self.pos})")

    def _need(self, n: int, what: str) -> None:
        if self.pos + n > len(self.buf):
            raise self.error(f"truncated file: {what} needs {n} bytes")

    # -- low level ----------------------------------------------------------------------
    def skip_ws(self) -> None:
        buf, n, p = self.buf, len(self.buf), self.pos
        while p < n and buf[p] in _WS:
            p += 1
        self.pos = p

    def at_end(self) -> bool:
        self.skip_ws()
        return self.pos >= len(self.buf)

    def peek(self, n: int = 1) -> bytes:
        self.skip_ws()
        return self.buf[self.pos : self.pos + n]

    def word(self) -> str:
        """The next whitespace-separated word (tokens, text values)."""
        self.skip_ws()
        buf, n, start = self.buf, len(self.buf), self.pos
        if start >= n:
            raise self.error("unexpected end of file")
        p = start
        while p < n and buf[p] not in _WS:
            p += 1
        self.pos = p
        try:
            return buf[start:p].decode("utf-8")
        except UnicodeDecodeError:
            raise self.error(f"bad token {buf[start:p][:40]!r}") from None

    def token(self) -> str:
        """The next ``<Tag>`` token, with its brackets."""
        w = self.word()
        if not (w.startswith("<") and w.endswith(">")):
            if self.pos >= len(self.buf):
                raise self.error(f"truncated file: ends in {w[:40]!r}")
            raise self.error(f"expected a <Token>, found {w[:40]!r}")
        return w

    def expect(self, tok: str) -> None:
        got = self.token()
        if got != tok:
            raise self.error(f"expected {tok}, found {got[:40]}")

    def find(self, marker: bytes) -> int:
        """Move just past the next occurrence of ``marker`` (-1 and no move if none)."""
        i = self.buf.find(marker, self.pos)
        if i < 0:
            return -1
        self.pos = i + len(marker)
        return i

    def line(self) -> str:
        """The rest of the current line (text config of nnet3, in both forms)."""
        buf, p = self.buf, self.pos
        end = buf.find(b"\n", p)
        end = len(buf) if end < 0 else end
        self.pos = end + 1
        try:
            return buf[p:end].decode("utf-8")
        except UnicodeDecodeError:
            raise self.error("config line is not UTF-8") from None

    # -- basic values ---------------------------------------------------------------------
    def _sized(self, what: str) -> tuple[int, int]:
        self.skip_ws()
        self._need(1, what)
        size = self.buf[self.pos]
        if size not in (1, 2, 4, 8):
            raise self.error(f"{what}: bad size byte {size}")
        self.pos += 1
        self._need(size, what)
        return size, self.pos

    def read_int(self) -> int:
        if not self.binary:
            w = self.word()
            try:
                return int(w)
            except ValueError:
                raise self.error(f"expected an integer, found {w[:40]!r}") from None
        size, p = self._sized("integer")
        self.pos = p + size
        return int.from_bytes(self.buf[p : p + size], "little", signed=True)

    def read_float(self) -> float:
        if not self.binary:
            w = self.word()
            try:
                return float(w)
            except ValueError:
                raise self.error(f"expected a number, found {w[:40]!r}") from None
        size, p = self._sized("number")
        if size not in (4, 8):
            raise self.error(f"number of {size} bytes")
        self.pos = p + size
        return float(np.frombuffer(self.buf, "<f4" if size == 4 else "<f8", 1, p)[0])

    def read_bool(self) -> bool:
        if self.binary:
            self.skip_ws()
            self._need(1, "boolean")
            c = self.buf[self.pos : self.pos + 1]
            self.pos += 1
        else:
            c = self.word().encode()
        if c not in (b"T", b"F"):
            raise self.error(f"expected T or F, found {c[:40]!r}")
        return c == b"T"

    def read_int_vector(self) -> np.ndarray:
        if not self.binary:
            return self._text_array("integer vector", np.int64).reshape(-1)
        self.skip_ws()
        self._need(5, "integer vector")
        size = self.buf[self.pos]
        if size != 4:
            raise self.error(f"integer vector of {size}-byte elements")
        n = int.from_bytes(self.buf[self.pos + 1 : self.pos + 5], "little", signed=True)
        self.pos += 5
        if n < 0:
            raise self.error(f"integer vector of size {n}")
        self._need(4 * n, "integer vector")
        v = np.frombuffer(self.buf, "<i4", n, self.pos).astype(np.int64)
        self.pos += 4 * n
        return v

    # -- matrices and vectors -----------------------------------------------------------
    def read_matrix(self) -> np.ndarray:
        if not self.binary:
            return self._text_array("matrix", np.float32)
        tag = self.word()
        if tag not in ("FM", "DM"):
            raise self.error(f"expected a matrix (FM/DM), found {tag[:40]!r}" + (
                " (compressed matrices are not supported)" if tag.startswith("CM") else ""))
        rows, cols = self.read_int(), self.read_int()
        if rows < 0 or cols < 0:
            raise self.error(f"matrix of {rows}x{cols}")
        return self._raw(rows * cols, tag[0] == "D", "matrix").reshape(rows, cols)

    def read_vector(self) -> np.ndarray:
        if not self.binary:
            return self._text_array("vector", np.float32).reshape(-1)
        tag = self.word()
        if tag not in ("FV", "DV"):
            raise self.error(f"expected a vector (FV/DV), found {tag[:40]!r}")
        n = self.read_int()
        if n < 0:
            raise self.error(f"vector of size {n}")
        return self._raw(n, tag[0] == "D", "vector")

    def _raw(self, n: int, double: bool, what: str) -> np.ndarray:
        item = 8 if double else 4
        self._need(n * item, what)
        a = np.frombuffer(self.buf, "<f8" if double else "<f4", n, self.pos)
        self.pos += n * item
        return a.astype(np.float32) if double else a

    def _text_array(self, what: str, dtype: type) -> np.ndarray:
        """``[ ... ]``: a 2-D array (rows: the non-empty lines inside)."""
        self.skip_ws()
        if self.buf[self.pos : self.pos + 1] != b"[":
            raise self.error(f"expected '[' of a {what}, found {self.buf[self.pos:self.pos + 20]!r}")
        end = self.buf.find(b"]", self.pos)
        if end < 0:
            raise self.error(f"truncated file: {what} has no closing ']'")
        body = self.buf[self.pos + 1 : end]
        self.pos = end + 1
        rows = sum(1 for ln in body.split(b"\n") if ln.strip())
        try:
            text = body.decode("ascii")
        except UnicodeDecodeError:
            raise self.error(f"{what} holds non-ASCII bytes") from None
        words = len(text.split())
        if words == 0:
            return np.zeros((0, 0), dtype)
        vals = np.fromstring(text, dtype=np.float64, sep=" ")  # no Python list of the values
        if vals.size != words:
            raise self.error(f"{what} holds something that is not a number")
        if vals.size % rows:
            raise self.error(f"{what}: rows of different lengths")
        if dtype is np.int64:
            if not np.all(vals == np.round(vals)):
                raise self.error(f"{what} holds non-integers")
        return vals.astype(dtype).reshape(rows, -1)

    # -- a value whose kind the reader guesses (fields no table declares) -----------------
    def read_guess(self) -> object:
        """The next value: a matrix, vector, bool or number (None: the next thing
        is a token)."""
        self.skip_ws()
        head = self.buf[self.pos : self.pos + 3]
        if not head or head[:1] == b"<":
            return None
        if self.binary:
            if head in (b"FM ", b"DM "):
                return self.read_matrix()
            if head in (b"FV ", b"DV "):
                return self.read_vector()
            if head[:1] in (b"T", b"F"):
                return self.read_bool()
            return self.read_float()
        if head[:1] == b"[":
            save = self.pos
            a = self.read_matrix()
            if a.shape[0] <= 1:
                self.pos = save
                return self.read_vector()
            return a
        w = self.word()
        if w in ("T", "F"):
            return w == "T"
        try:
            return int(w)
        except ValueError:
            pass
        try:
            return float(w)
        except ValueError:
            raise self.error(f"unexpected {w[:40]!r}") from None

    def read_kind(self, kind: str) -> object:
        """A value of a declared kind (:data:`xmo.dialects.kaldi.FIELD_KINDS`)."""
        if kind == "int":
            return self.read_int()
        if kind == "float":
            return self.read_float()
        if kind == "bool":
            return self.read_bool()
        if kind == "ivec":
            return self.read_int_vector()
        if kind == "vector":
            return self.read_vector()
        if kind == "matrix":
            return self.read_matrix()
        return self.word()


__all__ = ["KaldiFrontendError", "KaldiStream"]
