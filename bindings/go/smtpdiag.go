// SPDX-License-Identifier: BSD-2-Clause
// Copyright (c) 2025-2026 The smtpdiag authors; see LICENSE

// Package smtpdiag explains SMTP failures: what a reply, a bounce or a
// log line means and what to do about it. It calls the C library's one
// JSON entry point, smtpdiag_call, found through pkg-config.
package smtpdiag

/*
#cgo pkg-config: smtpdiag
#include <stdlib.h>
#include <smtpdiag.h>
*/
import "C"

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
	"unsafe"
)

// Error is a failure the library reports: {"error":{"code":..,"message":..}}.
type Error struct {
	Code    string // the answer's error code (a number is given in decimal)
	Message string
	Status  int // smtpdiag_call's negative return code
}

func (e *Error) Error() string {
	return fmt.Sprintf("smtpdiag: %s: %s", e.Code, e.Message)
}

// Option changes a request.
type Option func(*request)

// WithMode selects the verdict's mode: "default" or "sisimai".
func WithMode(mode string) Option { return func(r *request) { r.Mode = mode } }

type request struct {
	Op          string `json:"op"`
	Input       string `json:"input,omitempty"`
	InputBase64 string `json:"input_base64,omitempty"`
	Mode        string `json:"mode,omitempty"`
}

// Verdict holds the fields explain, decode and scan share.
type Verdict struct {
	Recipient  string   `json:"recipient"`
	ReplyCode  string   `json:"replycode"`
	Reason     string   `json:"reason"`
	Retry      bool     `json:"retry"`
	HardBounce bool     `json:"hardbounce"`
	Advice     string   `json:"advice"`
	Fixer      []string `json:"fixer"`
	Evidence   []string `json:"evidence"`
}

// Explanation is what explain says of one reply.
type Explanation struct {
	Verdict
	Query  string          `json:"query"`
	Status string          `json:"status"` // the enhanced status code, e.g. "5.1.1"
	Class  string          `json:"class"`
	Bounce bool            `json:"bounce"`
	Vendor string          `json:"vendor"`
	Title  string          `json:"title"`
	Raw    json.RawMessage `json:"-"` // the whole answer, with every other field
}

// Record is one fact decode or scan found (one JSON Lines record of
// `smtpdiag decode` or `smtpdiag scan`).
type Record struct {
	Verdict
	Action         string          `json:"action"`
	Addresser      string          `json:"addresser"`
	DeliveryStatus string          `json:"deliverystatus"` // decode's enhanced status code
	Status         string          `json:"status"`         // scan's enhanced status code
	DiagnosticCode string          `json:"diagnosticcode"`
	DecodedBy      string          `json:"decodedby"`
	Destination    string          `json:"destination"`
	Command        string          `json:"command"`
	Timestamp      int64           `json:"timestamp"`
	Raw            json.RawMessage `json:"-"` // the whole record
}

// Result is what decode and scan return.
type Result struct {
	Results []Record          `json:"results"`
	Counts  json.RawMessage   `json:"counts"`
	Errors  []json.RawMessage `json:"errors"`
	Raw     json.RawMessage   `json:"-"`
}

// VersionInfo is the library's version and licence.
type VersionInfo struct {
	Version string          `json:"version"`
	License string          `json:"license"`
	Raw     json.RawMessage `json:"-"`
}

// call sends one request and returns the answer's bytes, or an *Error.
func call(req request) ([]byte, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	cbody := C.CBytes(body)
	defer C.free(cbody)
	var answer *C.char
	var alen C.size_t
	rc := C.smtpdiag_call((*C.char)(cbody), C.size_t(len(body)), &answer, &alen)
	var out []byte
	if answer != nil {
		out = C.GoBytes(unsafe.Pointer(answer), C.int(alen))
		C.smtpdiag_call_free(answer)
	}
	if rc < 0 {
		var e struct {
			Error *struct {
				Code    json.RawMessage `json:"code"` // a name or a number
				Message string          `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(out, &e) == nil && e.Error != nil {
			code := string(e.Error.Code)
			var name string
			if json.Unmarshal(e.Error.Code, &name) == nil {
				code = name
			}
			return nil, &Error{Code: code, Message: e.Error.Message, Status: int(rc)}
		}
		return nil, &Error{Code: "call", Message: fmt.Sprintf("smtpdiag_call returned %d", int(rc)), Status: int(rc)}
	}
	return out, nil
}

func withInput(op string, data []byte, opts []Option) request {
	r := request{Op: op}
	if utf8.Valid(data) {
		r.Input = string(data)
	} else {
		r.InputBase64 = base64.StdEncoding.EncodeToString(data)
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// answer sends req and reads the answer into v; it returns the answer's bytes.
func answer(req request, v interface{}) ([]byte, error) {
	out, err := call(req)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(out, v); err != nil {
		return nil, err
	}
	return out, nil
}

// Explain says what one SMTP reply or DSN text means.
func Explain(text string, opts ...Option) (*Explanation, error) {
	var x Explanation
	out, err := answer(withInput("explain", []byte(text), opts), &x)
	if err != nil {
		return nil, err
	}
	x.Raw = out
	return &x, nil
}

func result(op string, data []byte, opts []Option) (*Result, error) {
	var r Result
	out, err := answer(withInput(op, data, opts), &r)
	if err != nil {
		return nil, err
	}
	r.Raw = out
	var raws struct {
		Results []json.RawMessage `json:"results"`
	}
	if json.Unmarshal(out, &raws) == nil && len(raws.Results) == len(r.Results) {
		for i := range r.Results {
			r.Results[i].Raw = raws.Results[i]
		}
	}
	return &r, nil
}

// Decode reads a bounce message (or a mailbox of them); 8-bit bytes are
// passed unchanged.
func Decode(data []byte, opts ...Option) (*Result, error) {
	return result("decode", data, opts)
}

// DecodeFile decodes the bounce message in the file at path.
func DecodeFile(path string, opts ...Option) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(data, opts...)
}

// Scan reads mail server log lines.
func Scan(text string, opts ...Option) (*Result, error) {
	return result("scan", []byte(text), opts)
}

// ScanReader reads mail server log lines from r.
func ScanReader(r io.Reader, opts ...Option) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return result("scan", data, opts)
}

// Version returns the library's version and licence.
func Version() (*VersionInfo, error) {
	var v VersionInfo
	out, err := answer(request{Op: "version"}, &v)
	if err != nil {
		return nil, err
	}
	v.Raw = out
	return &v, nil
}
