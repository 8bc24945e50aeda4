package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// healthcheck asks the service configured by the same variables (CALENDAR_LISTEN) for /healthz
// and fails unless it answers 200. It is the container image's HEALTHCHECK: a scratch image has no
// curl or wget, and the binary knows where it listens.
func healthcheck(args []string) error {
	cfg, err := loadConfigFor("healthcheck", args, osGetenv, nil)
	if err != nil {
		return err
	}
	u, err := healthURL(cfg.Listen)
	if err != nil {
		return &ConfigError{Var: "CALENDAR_LISTEN", Err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	body, err := probeHealth(ctx, u)
	if err != nil {
		return err
	}
	fmt.Println(body)
	return nil
}

// healthURL is the /healthz URL of a service listening on listen: a wildcard or empty host is
// reached on the loopback address of its family.
func healthURL(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", err
	}
	if port == "" || port == "0" {
		return "", fmt.Errorf("%q names no fixed port to probe", listen)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz", nil
}

// probeHealth GETs u and returns the body of a 200 answer; any other answer is an error naming it.
func probeHealth(ctx context.Context, u string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered %d: %s", u, resp.StatusCode, body)
	}
	return string(body), nil
}
