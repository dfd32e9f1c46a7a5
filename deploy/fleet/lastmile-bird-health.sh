#!/bin/sh
# Announce the anycast prefix through bird2 only while lastmile is ready:
# `birdc disable anycast` at the first unready (or unanswered) check,
# `birdc enable anycast` after HOLD_DOWN seconds of ready ones. The health
# check is `lastmile health --ready` (exit 0 when ready), which asks the admin
# API's GET /lastmile/ready (200 ready, 503 with the reasons when not). ExaBGP operators can run the same check
# from its healthcheck process.
ADMIN=${ADMIN:-127.0.0.1:2019}
INTERVAL=${INTERVAL:-1}
HOLD_DOWN=${HOLD_DOWN:-30}
ready_since=
state=
while :; do
	now=$(date +%s)
	if lastmile health --ready --admin "$ADMIN" --timeout "${INTERVAL}s" >/dev/null 2>&1; then
		: "${ready_since:=$now}"
		if [ "$state" != up ] && [ $((now - ready_since)) -ge "$HOLD_DOWN" ]; then
			birdc enable anycast >/dev/null && state=up
		fi
	else
		ready_since=
		if [ "$state" != down ]; then
			birdc disable anycast >/dev/null && state=down
		fi
	fi
	sleep "$INTERVAL"
done
