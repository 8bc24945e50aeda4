package main

import (
	"errors"
	"testing"
)

// CALENDAR_CUSTOM_TABLES stands for wp-config.php's TEC_CUSTOM_TABLES_V1_DISABLED, which calendard
// cannot read from the database.
func TestCustomTablesSetting(t *testing.T) {
	for _, tc := range []struct {
		value   string
		off, ok bool
	}{
		{"", false, true}, // default auto: the site's options decide
		{"auto", false, true},
		{"off", true, true},
		{"on", false, false}, // the plugin has no switch that forces the tables on
		{"OFF ", false, false},
	} {
		t.Run("value "+tc.value, func(t *testing.T) {
			vars := map[string]string{}
			if tc.value != "" {
				vars["CALENDAR_CUSTOM_TABLES"] = tc.value
			}
			c, err := loadConfig(nil, env(vars))
			if !tc.ok {
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.Var != "CALENDAR_CUSTOM_TABLES" {
					t.Fatalf("err = %v, want a ConfigError naming CALENDAR_CUSTOM_TABLES", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.CustomTablesOff != tc.off {
				t.Errorf("CustomTablesOff = %v, want %v", c.CustomTablesOff, tc.off)
			}
		})
	}
}
