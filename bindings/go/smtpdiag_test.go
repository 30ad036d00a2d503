// SPDX-License-Identifier: BSD-2-Clause
// Copyright (c) 2025-2026 The smtpdiag authors; see LICENSE

package smtpdiag

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func samples(name string) string {
	return filepath.Join("..", "..", "samples", name)
}

func TestExplainUserUnknown(t *testing.T) {
	x, err := Explain("550 5.1.1 user unknown")
	if err != nil {
		t.Fatal(err)
	}
	if x.Reason != "userunknown" || !x.HardBounce || x.Retry {
		t.Fatalf("reason %q hardbounce %v retry %v", x.Reason, x.HardBounce, x.Retry)
	}
	if x.ReplyCode != "550" || x.Status != "5.1.1" || x.Advice != "suppress-recipient" {
		t.Fatalf("replycode %q status %q advice %q", x.ReplyCode, x.Status, x.Advice)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(x.Raw, &all); err != nil || all["short_answer"] == nil {
		t.Fatalf("Raw lacks the other fields: %v %s", err, x.Raw)
	}
}

func TestExplainTemporary(t *testing.T) {
	x, err := Explain("452 4.2.2 mailbox full")
	if err != nil {
		t.Fatal(err)
	}
	if !x.Retry || x.HardBounce || x.Class != "transient" {
		t.Fatalf("retry %v hardbounce %v class %q", x.Retry, x.HardBounce, x.Class)
	}
}

func TestDecodeFileRecipient(t *testing.T) {
	r, err := DecodeFile(samples("bounces/postfix-userunknown.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 {
		t.Fatalf("%d results: %s", len(r.Results), r.Raw)
	}
	rec := r.Results[0]
	if rec.Recipient != "nobody@example.org" || rec.Reason != "userunknown" || rec.DeliveryStatus != "5.1.1" {
		t.Fatalf("recipient %q reason %q status %q", rec.Recipient, rec.Reason, rec.DeliveryStatus)
	}
	if !strings.Contains(string(rec.Raw), `"decodedby":"postfix"`) {
		t.Fatalf("record Raw: %s", rec.Raw)
	}
}

func TestDecodeMbox(t *testing.T) {
	r, err := DecodeFile(samples("two-bounces.mbox"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) < 2 {
		t.Fatalf("%d results from two bounces: %s", len(r.Results), r.Raw)
	}
}

// Bytes that are not UTF-8 travel as input_base64 and arrive unchanged.
func TestDecodeEightBit(t *testing.T) {
	msg := "From: MAILER-DAEMON@example.org\r\nTo: a@example.net\r\nSubject: Undelivered Mail Returned to Sender \xe9t\xe9\r\n\r\n" +
		"<m\xfcller@example.org>: host mx.example.org said: 550 5.1.1 User unknown\r\n"
	req := withInput("decode", []byte(msg), nil)
	if req.InputBase64 == "" || req.Input != "" {
		t.Fatalf("8-bit input not sent as base64: %+v", req)
	}
	r, err := Decode([]byte(msg))
	if err != nil {
		t.Fatalf("8-bit input refused: %v", err)
	}
	if len(r.Results) != 1 || r.Results[0].Reason != "userunknown" ||
		!strings.HasSuffix(r.Results[0].Recipient, "ller@example.org") {
		t.Fatalf("8-bit bounce: %s", r.Raw)
	}
}

func TestScan(t *testing.T) {
	line := "Nov  3 10:00:01 mx postfix/smtp[123]: 4ABC: to=<gone@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, status=bounced (host mx.example.org[192.0.2.1] said: 550 5.1.1 <gone@example.org>: User unknown (in reply to RCPT TO command))\n"
	r, err := ScanReader(strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 || r.Results[0].Recipient != "gone@example.org" || r.Results[0].Reason != "userunknown" {
		t.Fatalf("scan: %s", r.Raw)
	}
}

func TestVersion(t *testing.T) {
	v, err := Version()
	if err != nil {
		t.Fatal(err)
	}
	if v.Version == "" || v.License != "BSD-2-Clause" {
		t.Fatalf("version %q license %q", v.Version, v.License)
	}
}

func TestErrorIsTyped(t *testing.T) {
	_, err := call(request{Op: "no-such-op", Input: "x"})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T %v", err, err)
	}
	if e.Code == "" || e.Message == "" || e.Status >= 0 {
		t.Fatalf("error %+v", e)
	}
}

func TestModeOption(t *testing.T) {
	if _, err := Explain("550 5.1.1 user unknown", WithMode("sisimai")); err != nil {
		t.Fatal(err)
	}
	_, err := Explain("550 5.1.1 user unknown", WithMode("no-such-mode"))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("unknown mode: want *Error, got %v", err)
	}
}
