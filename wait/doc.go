// Package wait runs functions periodically, retries them with backoff and
// polls conditions until they hold. It reimplements
// k8s.io/apimachinery/pkg/util/wait with the same exported API and
// behaviour, so code written against it compiles and behaves the same after
// swapping the import path.
//
// The building blocks:
//
//   - Loops that run f until stopped: [Until], [NonSlidingUntil],
//     [JitterUntil] and [BackoffUntil] (and their WithContext variants).
//     "Sliding" loops start the period after f returns; non-sliding ones
//     measure it from the start of f.
//   - Polls that call a condition until it reports done, fails, or the wait
//     ends: [PollUntilContextCancel] and [PollUntilContextTimeout] return the
//     context's error; the deprecated Poll* functions return
//     [ErrWaitTimeout] instead. [Interrupted] recognises both.
//   - Backoff: [Backoff] computes delays (factor, jitter, cap, steps);
//     [ExponentialBackoff] retries a condition with them; a [DelayFunc] and a
//     [Timer] drive any of the loops.
//   - Small helpers: [Group] (start goroutines and wait for them),
//     [ContextForChannel], [Jitter], [NeverStop].
//
// Panics in the functions and conditions passed to the loops go through
// k8s.io/apimachinery/pkg/util/runtime.HandleCrashWithContext: they are logged
// and, with the default runtime.ReallyCrash, propagated to the caller. Nil
// functions, conditions, contexts and backoff managers are reported instead
// of panicking: loops without a result log the problem through
// runtime.HandleErrorWithContext and return, functions with an error result
// return an error.
//
// Time comes from k8s.io/utils/clock: the backoff managers and
// [DelayFunc.Timer] take a clock.Clock, everything else uses the real clock.
package wait
