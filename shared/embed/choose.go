package embed

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ollama/ollama/api"
)

// Choose returns the embedder that mode, the value of the -embedder flag, asks for:
//
//   - "ollama": Ollama with DefaultModel, checked now. If Ollama does not answer or lacks the
//     model, the error says how to fix that.
//   - "offline": the offline embedder. The network is not touched.
//   - "auto": Ollama if it answers and has the model; otherwise the offline embedder, with a
//     warning on logger that says what that costs and how to get the real thing. This way a
//     fresh machine without Ollama still runs, and nobody mistakes word matching for the
//     semantic search they were promised.
//
// client says where Ollama is; api.ClientFromEnvironment gives one for OLLAMA_HOST. The check
// takes at most a few seconds, and milliseconds when nothing listens at that address.
func Choose(ctx context.Context, mode string, client *api.Client, logger *slog.Logger) (Embedder, error) {
	ollama := NewOllama(client, DefaultModel)
	return choose(ctx, mode, ollama, ollama.Check, logger)
}

// CheckMode refuses a value of the -embedder flag that Choose does not know, without choosing:
// a program checks all its flags before it starts any work.
func CheckMode(mode string) error {
	switch mode {
	case "auto", "ollama", "offline":
		return nil
	}
	return fmt.Errorf("unknown embedder %q: use auto, ollama or offline", mode)
}

// ChooseModel is Choose with another Ollama model than DefaultModel, and opts for it (such as
// WithShortVectors). The length of a model's vectors is not in Ollama's list of models, so for
// any model but DefaultModel it is measured by embedding one short text.
//
// Short vectors are Ollama's to give. When auto falls back to the offline embedder, whose
// vectors cannot be cut, the server still starts, as auto promises, and a second warning says
// that -dimensions does nothing until a start that finds Ollama.
func ChooseModel(ctx context.Context, mode, model string, client *api.Client, logger *slog.Logger, opts ...Option) (Embedder, error) {
	ollama := NewOllama(client, model, opts...)
	ready := func(ctx context.Context) error {
		err := ollama.Check(ctx)
		if err == nil && !sameModel(ollama.Model(), DefaultModel) {
			err = ollama.MeasureDimensions(ctx)
		}
		return err
	}
	chosen, err := choose(ctx, mode, ollama, ready, logger)
	if _, offline := chosen.(*Offline); offline && ollama.shortenTo > 0 {
		logger.Warn("-dimensions (VAULTMCP_DIMENSIONS) IGNORED: only Ollama's vectors can be cut, not the offline embedder's word hashes; it takes effect at the next start that finds Ollama",
			"dimensions", ollama.shortenTo)
	}
	return chosen, err
}

// choose returns what mode asks for, as Choose says: ollama if ready says it can serve, else
// the offline embedder when mode allows it.
func choose(ctx context.Context, mode string, ollama *Ollama, ready func(context.Context) error, logger *slog.Logger) (Embedder, error) {
	if err := CheckMode(mode); err != nil {
		return nil, err
	}
	if mode == "offline" {
		logger.Info("embedder", "model", OfflineModel, "kind", "lexical: matches words, not meaning")
		return NewOffline(), nil
	}
	err := ready(ctx)
	switch {
	case err == nil:
		logger.Info("embedder", "model", ollama.Model(), "dimensions", ollama.Dimensions())
		return ollama, nil
	case mode == "ollama" || ctx.Err() != nil:
		return nil, err
	}
	logger.Warn("OLLAMA NOT AVAILABLE, USING THE OFFLINE EMBEDDER: search matches the words of a query, not its meaning",
		"reason", err,
		"fix", "for semantic search, install Ollama (https://ollama.com), run `ollama pull "+DefaultModel+"`, and restart")
	return NewOffline(), nil
}
