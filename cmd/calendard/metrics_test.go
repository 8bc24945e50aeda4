package main

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/internal/testenv"
)

func TestMetricsAndPrivateCacheSettings(t *testing.T) {
	for _, c := range []struct {
		name, metrics, private  string
		wantMetrics, wantPublic bool
		wantPrivate             cache.Private
	}{
		{"by default metrics are kept, not public, and private answers stay local", "", "", true, false, cache.PrivateLocal},
		{"public serves them on the API too", "public", "shared", true, true, cache.PrivateShared},
		{"off keeps none", "off", "off", false, false, cache.PrivateOff},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := loadConfig(nil, env(map[string]string{"CALENDAR_METRICS": c.metrics, "CALENDAR_CACHE_PRIVATE": c.private}))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Metrics != c.wantMetrics || cfg.PublicMetrics != c.wantPublic || cfg.CachePrivate != c.wantPrivate {
				t.Errorf("metrics %v public %v private %v", cfg.Metrics, cfg.PublicMetrics, cfg.CachePrivate)
			}
		})
	}
	for variable, value := range map[string]string{"CALENDAR_METRICS": "loud", "CALENDAR_CACHE_PRIVATE": "everywhere", "CALENDAR_METRICS_ADDR": "9464"} {
		t.Run(variable+"="+value+" is refused naming the variable", func(t *testing.T) {
			_, err := loadConfig(nil, env(map[string]string{variable: value}))
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Var != variable {
				t.Errorf("error %v, want one naming %s", err, variable)
			}
		})
	}
}

// /metrics is served on the diagnostics listener and on CALENDAR_METRICS_ADDR (the API listener
// serves it only with CALENDAR_METRICS=public: handlers' TestPrivateAnswersStayOutOfRedis).
func TestMetricsListeners(t *testing.T) {
	var debugAddr, metricsAddr string
	if err := testenv.OnFreePort(func(port int) error {
		debugAddr = "127.0.0.1:" + strconv.Itoa(port)
		return startDebug(debugAddr)
	}); err != nil {
		t.Fatal(err)
	}
	var stop func()
	if err := testenv.OnFreePort(func(port int) (err error) {
		metricsAddr = "127.0.0.1:" + strconv.Itoa(port)
		cfg := &Config{Metrics: true, MetricsAddr: metricsAddr}
		stop, err = serveMetrics(cfg, newMetrics(cfg))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer stop()
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, addr := range []string{debugAddr, metricsAddr} {
		if status, body := get("http://" + addr + "/metrics"); status != 200 || !strings.Contains(body, "go_goroutines") {
			t.Errorf("%s/metrics: %d %.200s", addr, status, body)
		}
	}
	if status, _ := get("http://" + metricsAddr + "/debug/vars"); status != 404 {
		t.Errorf("the metrics listener serves /debug/vars: %d", status)
	}
	taken := &Config{Metrics: true, MetricsAddr: metricsAddr}
	if _, err := serveMetrics(taken, newMetrics(taken)); err == nil {
		t.Error("a taken CALENDAR_METRICS_ADDR was accepted")
	}
}
