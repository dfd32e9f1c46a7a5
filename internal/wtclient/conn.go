package wtclient

import (
	"context"
	"crypto/tls"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// SessionFlowControl is what Connect's connections offer each session:
// webtransport-go carries several sessions on one connection only when
// both sides offer WebTransport flow control.
var SessionFlowControl = webtransport.Config{MaxIncomingStreams: 1 << 10, MaxIncomingUniStreams: 1 << 10, MaxIncomingData: 16 << 20}

// Connect opens a QUIC connection to addr ready for WebTransport sessions
// (HTTP/3, datagrams, partial delivery of reset streams, several sessions
// where the server allows them), with quicConf's other settings if given.
func Connect(ctx context.Context, addr string, tlsConf *tls.Config, quicConf *quic.Config) (*webtransport.ClientConn, *quic.Conn, error) {
	return ConnectOffering(ctx, addr, tlsConf, quicConf, &SessionFlowControl)
}

// ConnectOffering is Connect with sessions' flow control as given: nil
// offers none, as a client that allows one session per connection.
func ConnectOffering(ctx context.Context, addr string, tlsConf *tls.Config, quicConf *quic.Config, sessions *webtransport.Config) (*webtransport.ClientConn, *quic.Conn, error) {
	tlsConf = tlsConf.Clone()
	tlsConf.NextProtos = []string{http3.NextProtoH3}
	qc := &quic.Config{}
	if quicConf != nil {
		qc = quicConf.Clone()
	}
	qc.EnableDatagrams, qc.EnableStreamResetPartialDelivery = true, true
	conn, err := quic.DialAddr(ctx, addr, tlsConf, qc)
	if err != nil {
		return nil, nil, err
	}
	client, err := (&webtransport.Transport{Config: sessions}).NewClientConn(conn)
	if err != nil {
		conn.CloseWithError(0, "")
		return nil, nil, err
	}
	return client, conn, nil
}
