package main

import "fmt"

// demo is "calendard demo" (being built).
func demo(args []string) error { return fmt.Errorf("demo: not available yet") }
