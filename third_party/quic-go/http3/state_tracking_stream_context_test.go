package http3

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// lastmile patch: Close does the send side's done work itself instead of
// leaving it to the goroutine context.AfterFunc would start.
func TestStateTrackingStreamCloseRunsSendSideDoneAtOnce(t *testing.T) {
	client, _ := newStreamPair(t)
	str := newStateTrackingStream(client, &mockStreamClearer{}, func([]byte) error { return nil })

	require.NoError(t, str.Close())
	require.Error(t, client.Context().Err())
	require.False(t, str.stopAfterFunc(), "an AfterFunc is still registered")
}
