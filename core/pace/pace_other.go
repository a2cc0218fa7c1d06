//go:build !js

package pace

// Enter does nothing: natively goroutines run on threads of their own.
func Enter() {}

// Yield does nothing: natively nothing waits for this thread.
func Yield() {}

// Close does nothing: there is no pacing to end.
func Close() {}
