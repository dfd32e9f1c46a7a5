package originlink

import "time"

// LinkInfo is a socket's view of its path, from TCP_INFO: what `ss -ti`
// shows for one origin connection. Linux has it (tcpinfo_linux.go); elsewhere
// the admin API reports has_tcp_info false (tcpinfo_others.go).
type LinkInfo struct {
	Congestion        string        `json:"congestion_control"`
	RTT               time.Duration `json:"rtt_ns"`
	RTTVar            time.Duration `json:"rtt_var_ns"`
	MinRTT            time.Duration `json:"min_rtt_ns"`
	CwndPackets       uint32        `json:"cwnd_packets"`
	MSS               uint32        `json:"mss"`
	Retransmits       uint32        `json:"retransmits_total"`
	DeliveryRateBytes uint64        `json:"delivery_rate_bytes_per_s"`
	BytesInFlight     uint64        `json:"bytes_in_flight"`
	BytesSent         uint64        `json:"bytes_sent"`
	BytesReceived     uint64        `json:"bytes_received"`
	SendBuffer        int           `json:"send_buffer_bytes"`
	ReceiveBuffer     int           `json:"receive_buffer_bytes"`
}
