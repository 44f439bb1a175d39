#if os(Linux)
import Glibc

// Glibc's Swift module leaves out the _GNU_SOURCE declarations the memory monitor needs
// (sys/eventfd.h, gettid, pthread_setname_np), so they are declared here by symbol name, as
// the tests do for malloc_trim. All take and return plain integers and pointers, whose calling
// convention is the C one.

/// `eventfd(2)`: a counter descriptor; cgroup v1's `cgroup.event_control` only accepts these.
@_silgen_name("eventfd")
func systemEventFD(_ initialValue: UInt32, _ flags: Int32) -> Int32

/// `gettid(2)`: the kernel's id of the calling thread, to find it under /proc/self/task.
@_silgen_name("gettid")
func systemThreadID() -> Int32

/// `pthread_setname_np(3)`: names the watcher thread so `top -H` and /proc show what it is.
@_silgen_name("pthread_setname_np")
func systemSetThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32

/// eventfd's flags are the O_ flags of the same name (sys/eventfd.h defines them so).
let eventFDCloseOnExec = Int32(O_CLOEXEC)
let eventFDNonBlocking = Int32(O_NONBLOCK)
#endif
