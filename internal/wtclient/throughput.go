package wtclient

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/quic-go/webtransport-go"
)

// transferChunk is what Upload writes and Download reads at a time.
const transferChunk = 64 << 10

// Upload sends n bytes on a new bidirectional stream of s, whose server
// runs wtorigin.Discard, and returns once the server has counted them
// all.
func Upload(ctx context.Context, s *webtransport.Session, n int64) error {
	str, err := s.OpenStreamSync(ctx)
	if err != nil {
		return err
	}
	bound(ctx, str)
	chunk := make([]byte, transferChunk)
	for sent := int64(0); sent < n; {
		w, err := str.Write(chunk[:min(n-sent, int64(len(chunk)))])
		if err != nil {
			return err
		}
		sent += int64(w)
	}
	if err := str.Close(); err != nil {
		return err
	}
	reply, err := io.ReadAll(str)
	if err != nil {
		return err
	}
	if string(reply) != strconv.FormatInt(n, 10) {
		return fmt.Errorf("the server read %q bytes of %d", reply, n)
	}
	return nil
}

// Download asks for n bytes on a new bidirectional stream of s, whose
// server runs wtorigin.Source, and reads them all.
func Download(ctx context.Context, s *webtransport.Session, n int64) error {
	str, err := s.OpenStreamSync(ctx)
	if err != nil {
		return err
	}
	bound(ctx, str)
	if _, err := io.WriteString(str, strconv.FormatInt(n, 10)); err != nil {
		return err
	}
	if err := str.Close(); err != nil {
		return err
	}
	// Hide WriteTo so the copy reuses one buffer of transferChunk.
	got, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{str}, make([]byte, transferChunk))
	if err != nil {
		return err
	}
	if got != n {
		return fmt.Errorf("read %d bytes of %d", got, n)
	}
	return nil
}

// bound ends str's reads and writes at ctx's deadline, if it has one: a
// stream's calls do not watch a context.
func bound(ctx context.Context, str *webtransport.Stream) {
	if d, ok := ctx.Deadline(); ok {
		str.SetDeadline(d)
	}
}
