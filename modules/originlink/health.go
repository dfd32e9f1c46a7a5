package originlink

// Reachability counts the origin pools of the running configs whose first
// round of dials is over, and how many of those hold an open link: the
// anycast health model reads it to withdraw a node whose origins are all
// gone. A pool still dialling is counted in neither, so a starting config
// is not judged before it has tried; an HTTP/1.1 origin (no pooled links)
// counts as reachable, having answered its last dial.
func Reachability() (pools, reachable int) {
	for _, p := range livePools() {
		select {
		case <-p.ready:
		default:
			continue
		}
		pools++
		if p.http1.Load() || len(p.liveLinks()) > 0 {
			reachable++
		}
	}
	return pools, reachable
}
