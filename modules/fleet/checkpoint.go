package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"time"

	"github.com/caddyserver/certmagic"
)

// checkpoint is where this node is in the stream, kept in Caddy's storage
// (a file by default; shared storage works, the key names the node).
type checkpoint struct {
	Seq uint64 `json:"seq"`
	// StreamCreated tells a recreated stream (sequences start again at 1)
	// from the one the sequence belongs to.
	StreamCreated time.Time `json:"stream_created"`
}

func checkpointKey(stream, node string) string {
	return "lastmile/fleet/" + stream + "/" + node + ".json"
}

func loadCheckpoint(ctx context.Context, s certmagic.Storage, key string) (checkpoint, bool, error) {
	data, err := s.Load(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return checkpoint{}, false, nil
	}
	if err != nil {
		return checkpoint{}, false, err
	}
	var c checkpoint
	if err := json.Unmarshal(data, &c); err != nil {
		return checkpoint{}, false, err
	}
	return c, true, nil
}

func storeCheckpoint(ctx context.Context, s certmagic.Storage, key string, c checkpoint) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return s.Store(ctx, key, data)
}
