package testcaddy

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
)

// Metric is the value of a series (name and labels, as exposed) on the
// admin endpoint at adminAddr (host:port), 0 if it is absent.
func Metric(t testing.TB, adminAddr, series string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + adminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}
