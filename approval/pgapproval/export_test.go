package pgapproval

// WithoutListen makes a board rely on its polls alone, as it does while
// its notifications are lost, to measure what LISTEN/NOTIFY saves.
func WithoutListen() Option {
	return func(b *Board) error {
		b.noListen = true
		return nil
	}
}
