package main

import (
	"bytes"
	"strings"
	"testing"
)

// Each step's listing shows the shared declarations it starts to use, and none that a later
// step brings in.
func TestSharedDeclarations(t *testing.T) {
	tests := []struct {
		step      string
		want, not []string
	}{
		{"2", []string{"func Local(", "const DefaultMaxBody", "func Strict(", "func CleanPath("},
			[]string{"func Wrap(", "func CheckListenAddr(", "func (v *Vault) NoteInfos("}},
		{"9", []string{"func Wrap(", "func CheckListenAddr(", "func NewServer(", "==== new shared package vaultmcp/shared/inbox"},
			[]string{"func Local(", "func Strict("}},
		{"10", []string{"func (v *Vault) NoteInfos(", "==== new shared package vaultmcp/shared/reconcile"},
			[]string{"stdio.go", "func Wrap("}},
	}
	for _, tt := range tests {
		t.Run("step "+tt.step, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(t.Context(), []string{"diff-step", tt.step}, &out); err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.want {
				if !strings.Contains(out.String(), s) {
					t.Errorf("make diff %s lacks %q", tt.step, s)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(out.String(), s) {
					t.Errorf("make diff %s shows %q, which is not new in it", tt.step, s)
				}
			}
		})
	}
}
