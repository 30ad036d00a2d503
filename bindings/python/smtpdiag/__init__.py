"""smtpdiag: what an SMTP failure means and what to do about it.

Bindings to libsmtpdiag over its JSON entry point, smtpdiag_call() (smtpdiag.h).
The shared library is found through $SMTPDIAG_LIBRARY (a path), then
ctypes.util.find_library("smtpdiag"), then the soname libsmtpdiag.so.0.
"""
from __future__ import annotations

import base64
import ctypes
import ctypes.util
import json
import os
import threading
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, List, Optional, Union

__all__ = ["explain", "decode", "scan", "version", "call", "Explanation", "Fact", "LogRecord",
           "Result", "SmtpdiagError", "Verdict"]

SONAME = "libsmtpdiag.so.0"


class SmtpdiagError(Exception):
    """A failed call: code is the short code ("invalid", "limit", "parse",
    "notfound", "nomem", ...), message the library's own words, rc its
    negative SMTPDIAG_E* value."""

    def __init__(self, code: str, message: str, rc: int = 0):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.rc = rc


_lib = None
_lock = threading.Lock()


def _load():
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        path = os.environ.get("SMTPDIAG_LIBRARY") or ctypes.util.find_library("smtpdiag") or SONAME
        lib = ctypes.CDLL(path)
        lib.smtpdiag_call.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                      ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
        lib.smtpdiag_call.restype = ctypes.c_int
        lib.smtpdiag_call_free.argtypes = [ctypes.c_void_p]
        lib.smtpdiag_call_free.restype = None
        _lib = lib
        return lib


def call(request: dict) -> dict:
    """Send one request object to smtpdiag_call() and return its answer as a
    dict; a failure raises SmtpdiagError."""
    lib = _load()
    req = json.dumps(request).encode("utf-8")
    ans = ctypes.c_void_p()
    n = ctypes.c_size_t()
    rc = lib.smtpdiag_call(req, len(req), ctypes.byref(ans), ctypes.byref(n))
    if not ans.value:
        raise SmtpdiagError("nomem", "no answer from smtpdiag_call", rc)
    try:
        text = ctypes.string_at(ans.value, n.value)
    finally:
        lib.smtpdiag_call_free(ans)
    obj = json.loads(text)
    if rc < 0 or "error" in obj:
        err = obj.get("error", {})
        raise SmtpdiagError(err.get("code", "invalid"), err.get("message", ""), rc)
    return obj


def _input(data: Union[bytes, str, os.PathLike]) -> dict:
    """A path is read; str goes as text; bytes that are not plain ASCII text
    go as base64 (8-bit emails)."""
    if isinstance(data, os.PathLike):
        with open(data, "rb") as f:
            data = f.read()
    if isinstance(data, str):
        return {"input": data}
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        if data.isascii() and b"\0" not in data:
            return {"input": data.decode("ascii")}
        return {"input_base64": base64.b64encode(data).decode("ascii")}
    raise TypeError("expected bytes, str or a path, got " + type(data).__name__)


def _typed(cls, o: dict, rename: Optional[dict] = None):
    """An instance of the dataclass cls from the library's object o: each field
    from the member of its name (or rename's), bool fields as bools, the
    others as strings ("" when absent); the whole object in raw."""
    kw = {}
    for f in fields(cls):
        if f.name == "raw":
            continue
        v = o.get((rename or {}).get(f.name, f.name))
        kw[f.name] = bool(v) if f.type in ("bool", bool) else ("" if v is None else str(v))
    return cls(raw=o, **kw)


@dataclass
class Verdict:
    """The fields every verdict has; raw is the library's whole object."""
    recipient: str
    reason: str
    retry: bool
    hardbounce: bool
    advice: str
    replycode: str
    raw: dict = field(repr=False)


@dataclass
class Explanation(Verdict):
    """What explain found (the object of `smtpdiag explain --json`)."""
    status: str
    klass: str
    standard: bool
    bounce: bool
    title: str
    short_answer: str


@dataclass
class Fact(Verdict):
    """One recipient's verdict from a bounce or an ESP event (`smtpdiag decode`)."""
    deliverystatus: str
    diagnosticcode: str
    action: str
    origin: str


@dataclass
class LogRecord(Verdict):
    """One delivery attempt read from an MTA log line (`smtpdiag scan`)."""
    status: str
    action: str
    format: str
    queueid: str
    diagnosticcode: str

    @property
    def deliverystatus(self) -> str:
        return self.status



@dataclass
class Result:
    """A decode or scan answer: the records, the counts and the parts that could not be read."""
    results: List[Any]
    counts: dict
    errors: List[dict]
    raw: dict = field(repr=False)

    def __iter__(self):
        return iter(self.results)

    def __len__(self):
        return len(self.results)


def _mode(mode: str) -> dict:
    return {} if mode == "default" else {"mode": mode}


def explain(text: str, mode: str = "default") -> Explanation:
    """Explain a code ("550", "5.1.1", "552 4.3.1"), reply text or a pasted bounce."""
    if not isinstance(text, str):
        raise TypeError("explain takes a str")
    return _typed(Explanation, call({"op": "explain", "input": text, **_mode(mode)}), {"klass": "class"})


def decode(data: Union[bytes, str, os.PathLike], mode: str = "default") -> Result:
    """Decode an email, an mbox or ESP webhook events: bytes, text, or a path
    (os.PathLike). mode "sisimai" keeps the reference decoder's readings."""
    o = call({"op": "decode", **_input(data), **_mode(mode)})
    return Result([_typed(Fact, f) for f in o["results"]], o["counts"], o["errors"], o)


def scan(lines: Union[Iterable[str], bytes, str, os.PathLike], mode: str = "default") -> Result:
    """Read MTA log lines: a text, bytes, a path, or an iterable of lines."""
    if not isinstance(lines, (str, bytes, bytearray, memoryview, os.PathLike)):
        lines = "\n".join(l.rstrip("\n") for l in lines)
    o = call({"op": "scan", **_input(lines), **_mode(mode)})
    return Result([_typed(LogRecord, r) for r in o["results"]], o["counts"], o["errors"], o)


def version() -> str:
    """The library's version ("0.1.0")."""
    return call({"op": "version"})["version"]
