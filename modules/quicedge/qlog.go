package quicedge

import (
	"context"
	"os"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlogwriter"
	"go.uber.org/zap"

	"github.com/lastmile-edge/lastmile/internal/congestion/quichook"
	"github.com/lastmile-edge/lastmile/internal/qlogdir"
)

// defaultQlogMaxSize bounds a forgotten qlog_dir: a lab run of a few
// hundred page loads fits (a connection of 15 small pages writes 59 KB);
// a busy edge would fill its disk.
const defaultQlogMaxSize = 1 << 30

// provisionQlog opens the qlog directory: qlog_dir, else $QLOGDIR (quic-go's
// convention), else none.
func (a *App) provisionQlog() error {
	dir := a.QlogDir
	if dir == "" {
		dir = os.Getenv("QLOGDIR")
	}
	if dir == "" {
		return nil
	}
	if a.QlogMaxSize < 0 {
		return nil // Validate refuses it
	}
	if a.QlogMaxSize == 0 {
		a.QlogMaxSize = defaultQlogMaxSize
	}
	d, err := qlogdir.New(dir, a.QlogMaxSize)
	if err != nil {
		return err
	}
	d.OnFull = func() {
		a.logger.Warn("qlog_max_size reached: new QUIC connections are not traced", zap.String("dir", dir), zap.Int64("bytes", a.QlogMaxSize))
	}
	a.qlog = d
	a.logger.Info("tracing QUIC connections to qlog files", zap.String("dir", dir), zap.Int64("max_bytes", a.QlogMaxSize))
	return nil
}

// qlogTracer is quic.Config's Tracer: nil (no tracing) unless qlog is on.
// A connection's congestion controller writes its state and model into the
// same trace: quic-go calls the tracer with the context connContext made,
// before the connection sends.
func (a *App) qlogTracer() func(context.Context, bool, quic.ConnectionID) qlogwriter.Trace {
	if a.qlog == nil {
		return nil
	}
	return func(ctx context.Context, isClient bool, connID quic.ConnectionID) qlogwriter.Trace {
		trace := a.qlog.Tracer(ctx, isClient, connID)
		if cc, ok := ctx.Value(connControllerKey).(*quichook.Conn); ok && trace != nil {
			cc.TraceTo(ctx, trace)
		}
		return trace
	}
}
