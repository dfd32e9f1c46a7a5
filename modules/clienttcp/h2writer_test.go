package clienttcp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"

	"golang.org/x/net/http2"
)

// Once the client's preface shows HTTP/2, the server's frames go out on
// the connection's writer, whole, and the writer ends with the connection.
func TestHTTP2WritesGoThroughTheConnectionsWriter(t *testing.T) {
	server, client := connected(t, &ListenerWrapper{}, bare)
	if _, err := io.WriteString(client, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(server, preface); err != nil {
		t.Fatal(err)
	}
	c := server.(*conn)
	if !c.isHTTP2.Load() || c.h2w == nil {
		t.Fatal("the preface did not make the connection HTTP/2 with a writer")
	}
	var frames bytes.Buffer
	fr := http2.NewFramer(&frames, nil)
	if err := fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 7}); err != nil {
		t.Fatal(err)
	}
	if err := fr.WriteData(1, true, bytes.Repeat([]byte("x"), 3000)); err != nil {
		t.Fatal(err)
	}
	if n, err := server.Write(frames.Bytes()); err != nil || n != frames.Len() {
		t.Fatalf("Write: %d, %v; want %d bytes written", n, err, frames.Len())
	}
	got := http2.NewFramer(nil, client)
	f, err := got.ReadFrame()
	if s, ok := f.(*http2.SettingsFrame); err != nil || !ok || s.NumSettings() != 1 {
		t.Fatalf("first frame: %v, %v; want the SETTINGS written", f, err)
	}
	f, err = got.ReadFrame()
	if d, ok := f.(*http2.DataFrame); err != nil || !ok || len(d.Data()) != 3000 {
		t.Fatalf("second frame: %v, %v; want the 3000-byte DATA written", f, err)
	}
	w := c.h2w
	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.done:
	default:
		t.Fatal("Close did not stop the writer")
	}
	if _, err := server.Write(frames.Bytes()); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close: %v, want net.ErrClosed", err)
	}
}
