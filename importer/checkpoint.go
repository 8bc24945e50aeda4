package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// checkpoint is the file a run records its finished resources in (with their source-to-target ID
// maps), so an interrupted run resumes after the last finished resource. A run that completes
// removes it.
type checkpoint struct {
	path   string
	Source string                       `json:"source"`
	Done   map[Resource]map[int64]int64 `json:"done"`
}

// loadCheckpoint reads path ("" for no checkpoint). A checkpoint of another source is an error
// rather than silently ignored.
func loadCheckpoint(path, source string) (*checkpoint, error) {
	cp := &checkpoint{path: path, Source: source, Done: map[Resource]map[int64]int64{}}
	if path == "" {
		return cp, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return cp, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var old checkpoint
	if err := json.Unmarshal(b, &old); err != nil {
		return nil, fmt.Errorf("checkpoint %s is unreadable (remove it to start over): %w", path, err)
	}
	if old.Source != source {
		return nil, fmt.Errorf("checkpoint %s is of another import (%s); remove it or pick another --checkpoint", path, old.Source)
	}
	if old.Done != nil {
		cp.Done = old.Done
	}
	return cp, nil
}

// finish records a finished resource (written to a temporary file, then renamed: a crash leaves the
// old or the new checkpoint, never half of one).
func (cp *checkpoint) finish(res Resource, ids map[int64]int64) error {
	cp.Done[res] = ids
	if cp.path == "" {
		return nil
	}
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(cp.path), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := cp.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return os.Rename(tmp, cp.path)
}

func (cp *checkpoint) remove() error {
	if cp.path == "" {
		return nil
	}
	if err := os.Remove(cp.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
