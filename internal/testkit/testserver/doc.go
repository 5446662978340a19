// Package testserver holds loopback OpenAI-compatible servers for tests: Server counts every
// request with a real engine and answers as llama.cpp's server does; FaultServer injects one
// fault after a few healthy answers. Only tests import it (internal/archtest), so that the
// shipped binary links no net/http/httptest.
package testserver
