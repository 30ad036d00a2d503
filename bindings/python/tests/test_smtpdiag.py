"""Tests of the Python binding against the library as built (SMTPDIAG_LIBRARY)."""
import os
import pathlib

import pytest

import smtpdiag

ROOT = pathlib.Path(os.environ.get("SMTPDIAG_ROOT") or pathlib.Path(__file__).resolve().parents[3])
POSTFIX = ROOT / "samples" / "bounces" / "postfix-userunknown.eml"
LINE = ("Jan  1 00:00:00 mx postfix/smtp[1]: ABC: to=<a@b.example>, relay=x[192.0.2.1]:25, delay=1, "
        "delays=1/0/0/0, dsn=5.1.1, status=bounced (host x said: 550 5.1.1 no such user "
        "(in reply to RCPT TO command))")


def test_version():
    assert smtpdiag.version() == "0.1.0"


def test_explain_userunknown():
    e = smtpdiag.explain("550 5.1.1 user unknown")
    assert isinstance(e, smtpdiag.Explanation)
    assert e.reason == "userunknown"
    assert e.hardbounce is True and e.retry is False
    assert e.replycode == "550" and e.status == "5.1.1"
    assert e.raw["reason"] == "userunknown"


def test_explain_retry():
    e = smtpdiag.explain("452 4.2.2 mailbox full")
    assert e.retry is True and e.hardbounce is False


def test_explain_errors():
    with pytest.raises(smtpdiag.SmtpdiagError) as ex:
        smtpdiag.explain("the weather is fine")
    assert ex.value.code == "notfound" and ex.value.rc < 0
    with pytest.raises(smtpdiag.SmtpdiagError) as ex:
        smtpdiag.explain("550", mode="fast")
    assert ex.value.code == "invalid" and "fast" in ex.value.message


def test_decode_path_bytes_text():
    for data in (POSTFIX, POSTFIX.read_bytes(), POSTFIX.read_text()):
        r = smtpdiag.decode(data)
        assert r.counts["bounces"] == 1 and len(r) == 1
        f = r.results[0]
        assert isinstance(f, smtpdiag.Fact)
        assert f.recipient == "nobody@example.org"
        assert f.reason == "userunknown" and f.deliverystatus == "5.1.1" and f.replycode == "550"


def test_decode_mbox_and_sisimai_mode():
    r = smtpdiag.decode(ROOT / "samples" / "two-bounces.mbox", mode="sisimai")
    assert r.counts["messages"] == 2 and r.counts["bounces"] == 2
    assert {f.origin for f in r} == {"input:1", "input:2"}


def test_decode_8bit_goes_as_base64():
    raw = (ROOT / "tests" / "fixtures" / "store" / "latin1.eml").read_bytes()
    assert not raw.isascii()
    assert "input_base64" in smtpdiag._input(raw)
    r = smtpdiag.decode(raw)
    assert r.counts["messages"] == 1 and r.counts["errors"] == 0


def test_decode_not_a_bounce_and_events_errors():
    r = smtpdiag.decode(ROOT / "samples" / "not-a-bounce.eml")
    assert r.counts["not_bounces"] == 1 and not r.results
    r = smtpdiag.decode('{"notificationType":"Bounce"}')
    assert r.counts["errors"] == 1 and "known service" in r.errors[0]["error"]


def test_scan_text_and_lines():
    for data in (LINE + "\nnot a log line\n", [LINE, "not a log line"]):
        r = smtpdiag.scan(data)
        assert r.counts["lines"] == 2 and r.counts["records"] == 1
        rec = r.results[0]
        assert isinstance(rec, smtpdiag.LogRecord)
        assert rec.recipient == "a@b.example" and rec.reason == "userunknown" and rec.hardbounce
        assert rec.deliverystatus == "5.1.1"


def test_raw_call_errors():
    with pytest.raises(smtpdiag.SmtpdiagError) as ex:
        smtpdiag.call({"op": "decode", "input": "x", "colour": "red"})
    assert ex.value.code == "invalid" and "colour" in ex.value.message
    with pytest.raises(smtpdiag.SmtpdiagError) as ex:
        smtpdiag.call({"op": "decode", "input_base64": "!!"})
    assert ex.value.code == "parse"
    with pytest.raises(TypeError):
        smtpdiag.decode(42)
