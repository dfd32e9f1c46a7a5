package rum

import (
	"errors"
	"strings"
	"testing"
)

const goodBeacon = `{"v":1,"u":"/page/:id","nt":"navigate","p":"h3","cr":0,"t":[0,0,12,20,85,30,400,900],"sz":[5000,4000],"wv":[1200,80,0.02,700,90],"r":{"img":[8,40000,900]},"rp":{"h3":[12,60000,1500]},"sl":[["/img/a.jpg",300,"img"]],"rc":{"hit":7,"miss":1},"e":["hit",0.4,-1]}`

func TestDecodeBeacon(t *testing.T) {
	b, err := decodeBeacon([]byte(goodBeacon))
	if err != nil {
		t.Fatal(err)
	}
	if b.P != "h3" || b.T[tTTFB] != 85 || b.WV[wvCLS] != 0.02 {
		t.Fatalf("%+v", b)
	}
	for _, tc := range []struct{ in, reason string }{
		{strings.Repeat(" ", maxBeaconBytes+1), "too_large"},
		{`{"v":1`, "malformed"},
		{goodBeacon + `{}`, "malformed"},
		{strings.Replace(goodBeacon, `"v":1`, `"v":2`, 1), "version"},
		{strings.Replace(goodBeacon, `"cr":0`, `"cr":0,"user":"alice"`, 1), "malformed"},
		{strings.Replace(goodBeacon, `[0,0,12,20,85`, `[0,0,12,20,-5`, 1), "range"},
		{strings.Replace(goodBeacon, `900],"sz"`, `1e12],"sz"`, 1), "range"},
		{strings.Replace(goodBeacon, `0.02`, `500`, 1), "range"},
		{strings.Replace(goodBeacon, `["hit",0.4,-1]`, `[1,2,3]`, 1), "schema"},
		{strings.Replace(goodBeacon, `"/img/a.jpg",300`, `"/img/a.jpg","slow"`, 1), "schema"},
	} {
		_, err := decodeBeacon([]byte(tc.in))
		var de *decodeError
		if !errors.As(err, &de) || de.Reason != tc.reason {
			t.Errorf("%.60q: %v, want reason %s", tc.in, err, tc.reason)
		}
	}
}

// The decoder takes any bytes without panicking, and what it accepts is
// within bounds.
func FuzzDecodeBeacon(f *testing.F) {
	f.Add([]byte(goodBeacon))
	f.Add([]byte(`{"v":1,"t":[1e309]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := decodeBeacon(data)
		if err != nil {
			var de *decodeError
			if !errors.As(err, &de) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if b.V != beaconVersion || len(b.R) > maxMapKeys || len(b.SL) > maxSlowest || b.T[tTTFB] < 0 {
			t.Fatalf("accepted out of bounds: %+v", b)
		}
	})
}
