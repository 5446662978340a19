package corpora

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func TestJWDecodeBase64(t *testing.T) {
	pic := apiTestPNG(t, 30, 20)
	std := base64.StdEncoding.EncodeToString(pic)
	var mime strings.Builder // 76-character lines, as Python's base64.encodebytes writes
	for i := 0; i < len(std); i += 76 {
		mime.WriteString(std[i:min(i+76, len(std))] + "\r\n")
	}
	tests := []struct {
		name, in string
		want     []byte
		err      string
	}{
		{"padded", std, pic, ""},
		{"unpadded", strings.TrimRight(std, "="), pic, ""},
		{"MIME line breaks", mime.String(), pic, ""},
		{"hello", "aGVsbG8=", []byte("hello"), ""},
		{"bad character", "aGVs*G8=", nil, "invalid base64 at byte 4 of 8"},
		{"URL alphabet", "a-_b", nil, "invalid base64 at byte 1"},
		{"empty", "", []byte{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jwDecodeBase64([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("got %d bytes, err %v", len(got), err)
			}
		})
	}
}

func TestJWParseDataURL(t *testing.T) {
	tests := []struct {
		in        string
		ok        bool
		mediaType string
		base64    bool
		decoded   string
	}{
		{"data:image/png;base64,aGVsbG8=", true, "image/png", true, "hello"},
		{"DATA:Image/JPEG;name=x.jpg;BASE64,aGk=", true, "image/jpeg", true, "hi"},
		{"data:,hello%20world", true, "", false, "hello world"},
		{"data:image/png;base64", false, "", false, ""},
		{"https://example.com/a.png", false, "", false, ""},
	}
	for _, tt := range tests {
		d, ok := jwParseDataURL([]byte(tt.in))
		if ok != tt.ok || d.MediaType != tt.mediaType || d.Base64 != tt.base64 {
			t.Errorf("%q: ok %v type %q base64 %v", tt.in, ok, d.MediaType, d.Base64)
			continue
		}
		if ok {
			b, err := d.decode()
			if err != nil || string(b) != tt.decoded {
				t.Errorf("%q: decoded %q, %v", tt.in, b, err)
			}
		}
	}
}

func TestJWWalk(t *testing.T) {
	doc := []byte(`{"a~b/c" : [1, {"k\"ey":"v\u00e9"}, "x"], "n":null, "t":true}`)
	root := jwNode{raw: doc, loc: Location{File: "f", Line: 3}}
	f, err := root.fields()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = f.get("a~b/c").elements(func(i int, v jwNode) error {
		got = append(got, v.loc.Pointer+"="+string(v.raw))
		return nil
	})
	if err != nil || strings.Join(got, " ") != `/a~0b~1c/0=1 /a~0b~1c/1={"k\"ey":"v\u00e9"} /a~0b~1c/2="x"` {
		t.Errorf("elements = %q, %v", got, err)
	}
	inner := jwNodeAt(root, bytes.Index(doc, []byte(`v\u00e9`)))
	if s, _ := inner.text(); s != "vé" || inner.loc.Pointer != `/a~0b~1c/1/k"ey` || inner.loc.Offset != int64(bytes.Index(doc, []byte(`"v\u00e9"`))) {
		t.Errorf("node at = %q %+v", s, inner.loc)
	}
	if b, _ := f.get("t").boolean(); !b || !f.get("n").isNull() {
		t.Errorf("scalars wrong")
	}
	if _, err := f.get("t").text(); err == nil || !strings.Contains(err.Error(), "f:3:57 at /t: expected a string, found a boolean") {
		t.Errorf("type error = %v", err)
	}
	if rerr := jwCheck(jwNode{raw: []byte(`{"a":[1,2}`), loc: Location{File: "f", Line: 2}}); rerr == nil || rerr.Loc.Offset != 9 {
		t.Errorf("syntax error = %v", rerr)
	}
	if rerr := jwCheck(jwNode{raw: []byte("{\"a\":[\"ok\",\"b\xffd\"]}"), loc: Location{File: "f"}}); rerr == nil || rerr.Loc.Pointer != "/a/1" || rerr.Loc.Offset != 13 {
		t.Errorf("UTF-8 error = %+v", rerr)
	}
	if got := string(jwCompact([]byte("{ \"b\": 1,\n \"a\": [ 2 ] }"))); got != `{"b":1,"a":[2]}` {
		t.Errorf("compact = %s", got)
	}
}

func BenchmarkJWDecodeDataURL(b *testing.B) {
	pic := apiTestPNG(b, 800, 600)
	u := []byte("data:image/png;base64," + base64.StdEncoding.EncodeToString(pic))
	b.ReportAllocs()
	b.SetBytes(int64(len(u)))
	for b.Loop() {
		d, _ := jwParseDataURL(u)
		if _, err := d.decode(); err != nil {
			b.Fatal(err)
		}
	}
}
