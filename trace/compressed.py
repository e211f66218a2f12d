"""Compressed traces: a gzip, xz or zstd file is read as the trace inside it.

Captures are often kept compressed (``trace.txt.gz``, ``xentrace.bin.xz``,
``trace.dat.zst``).  A compressed stream is told by its first bytes -- the
gzip magic ``1f 8b``, the xz magic ``fd 37 7a 58 5a 00``, the zstd magic
``28 b5 2f fd`` (RFC 1952, the xz file format 1.2.0, RFC 8878) -- never by
its name, so a pipe is read the same way.  gzip and xz are read with the
standard library (:mod:`gzip`, :mod:`lzma`); zstd with
:mod:`compression.zstd` (Python 3.14 and later) or the ``zstandard`` package
where either is installed, and is otherwise refused in one line that says
how to decompress it.

A text trace is decompressed as it is read, in bounded memory.  The binary
formats are read out of order, so a compressed ``trace.dat`` or
``xentrace`` is first decompressed into a temporary file (in memory up to
:data:`SPOOL_MEMORY` bytes, then on disk), of at most :data:`MAX_INFLATED`
bytes.  Corrupt or truncated compressed data is bad input: one
:class:`~akita.trace.jsonl.TraceError` naming the file and the codec.
"""

from __future__ import annotations

import gzip
import importlib
import io
import lzma
import tempfile
import zlib
from typing import IO, Any, Callable, cast

from .jsonl import TraceError

__all__ = ["CODECS", "MAX_INFLATED", "SPOOL_MEMORY", "peek", "decompressed", "spooled"]

#: Each codec's magic.
CODECS = {"gzip": b"\x1f\x8b", "xz": b"\xfd7zXZ\x00", "zstd": b"\x28\xb5\x2f\xfd"}
#: The most bytes a compressed binary trace may inflate to.
MAX_INFLATED = 1 << 32
#: Bytes of an inflated binary trace kept in memory before it goes to disk.
SPOOL_MEMORY = 64 << 20
_SNIFF = 16
_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


def peek(stream: IO[Any], n: int = _SNIFF) -> bytes | str:
    """The first *n* bytes of *stream* without consuming them (by peeking, or seeking back)."""
    if hasattr(stream, "peek"):
        return cast("bytes | str", stream.peek(n)[:n])
    if stream.seekable():
        where = stream.tell()
        head: bytes | str = stream.read(n)
        stream.seek(where)
        return head
    return ""


def decompressed(stream: IO[Any], path: str) -> tuple[IO[Any], str | None]:
    """*stream*, or if its first bytes are a codec's magic, the data inside it (buffered,
    with ``peek``), and the codec's name."""
    head = peek(stream, _SNIFF)
    if not isinstance(head, bytes):
        return stream, None
    for codec, magic in CODECS.items():
        if head.startswith(magic):
            inner = _open(codec, stream, path)
            return io.BufferedReader(_Guarded(inner, path, codec)), codec
    return stream, None


def spooled(stream: IO[bytes], path: str, codec: str) -> IO[bytes]:
    """The rest of the decompressed *stream* in a seekable temporary file."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)
    copied = 0
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        copied += len(chunk)
        if copied > MAX_INFLATED:
            spool.close()
            raise TraceError("", f"{codec} data of more than {MAX_INFLATED} bytes",
                             f"a compressed binary trace of at most {MAX_INFLATED} bytes "
                             "inflated (decompress it first)", path=path)
        spool.write(chunk)
    spool.seek(0)
    return spool


def _open(codec: str, stream: IO[bytes], path: str) -> IO[bytes]:
    if codec == "gzip":
        return cast(IO[bytes], gzip.GzipFile(fileobj=stream, mode="rb"))
    if codec == "xz":
        return cast(IO[bytes], lzma.LZMAFile(stream))
    opener = _zstd()
    if opener is None:
        raise TraceError("", "a zstd-compressed file", "a trace this Python can read: it has "
                         "no zstd decoder (compression.zstd is in Python 3.14 and later; or "
                         "pip install zstandard); decompress it first with 'zstd -d FILE'",
                         path=path)
    return opener(stream)


def _zstd() -> Callable[[IO[bytes]], IO[bytes]] | None:
    """A zstd reader of the standard library's or the ``zstandard`` package's, if any."""
    for module, name in (("compression.zstd", "ZstdFile"), ("zstandard", None)):
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        if name is not None:
            return cast(Callable[[IO[bytes]], IO[bytes]], getattr(found, name))
        return lambda stream: found.ZstdDecompressor().stream_reader(stream)
    return None


class _Guarded(io.RawIOBase):
    """A decompressing reader whose errors are the trace's: one located line each."""

    def __init__(self, inner: IO[bytes], path: str, codec: str) -> None:
        self._inner, self._path, self._codec = inner, path, codec

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self._inner.read(len(buffer))
        except _ERRORS as error:
            raise TraceError("", f"{type(error).__name__}: {error}".strip(": ")[:120],
                             f"{self._codec} data that decompresses whole (the file is "
                             "corrupt or cut short)", path=self._path) from None
        buffer[:len(data)] = data
        return len(data)
