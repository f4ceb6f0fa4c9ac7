//! Reading a mapped file that shrinks under us without dying of SIGBUS.
//!
//! A read through a file mapping past the file's current end raises SIGBUS:
//! another process truncated the file (`truncate`, `cp new old`, a server
//! shrinking a tablespace) after we mapped it. The library reads `&[u8]` and
//! cannot tell; the process would die with no message and half an output.
//!
//! The binary registers every map it makes ([`Guard::new`]). A SIGBUS whose
//! address lies inside a registered map is answered by mapping anonymous zero
//! pages over the rest of that map (`MAP_FIXED`), noting the fault in the
//! map's slot, and returning: the faulting read runs again and sees zeros, so
//! every pass finishes and every document it writes stays whole. When the
//! map is dropped the input reports the change ("changed while it was read")
//! and the run exits 2. A SIGBUS anywhere else goes to the handler that was
//! there before (Rust's own, which reports stack overflows), or, if there was
//! none, kills the process as SIGBUS always did.
//!
//! The handler does only what a signal handler may: atomic loads and stores,
//! `mmap` and `sigaction`. Linux on x86_64 and aarch64 only (the layouts of
//! `struct sigaction` and `siginfo_t` below are those of glibc and musl
//! there); elsewhere [`Guard::new`] registers nothing and a shrinking file
//! still faults.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How many maps may be guarded at once (the commands hold at most a few;
/// `audit` one per thread).
const SLOTS: usize = 256;

struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};

static SLOTS_IN_USE: [Slot; SLOTS] = [EMPTY; SLOTS];

/// One guarded map: while it lives, a SIGBUS inside `start..start + len`
/// reads zeros instead of killing the process.
#[derive(Debug)]
pub struct Guard {
    slot: Option<usize>,
}

impl Guard {
    /// Guards the map at `start`, `len` bytes long. With every slot taken
    /// (or off Linux) nothing is guarded.
    pub fn new(start: *const u8, len: usize) -> Guard {
        if !sys::install() || len == 0 {
            return Guard { slot: None };
        }
        let start = start as usize;
        for (k, s) in SLOTS_IN_USE.iter().enumerate() {
            // Claim a free slot by its end: 0 is free.
            if s.end
                .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                s.faulted.store(false, Ordering::Relaxed);
                s.start.store(start, Ordering::Release);
                s.end.store(start.saturating_add(len), Ordering::Release);
                return Guard { slot: Some(k) };
            }
        }
        Guard { slot: None }
    }

    /// Whether a read inside the map faulted (the file shrank; zeros were
    /// read past its new end).
    pub fn faulted(&self) -> bool {
        self.slot
            .and_then(|k| SLOTS_IN_USE.get(k))
            .is_some_and(|s| s.faulted.load(Ordering::Acquire))
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(s) = self.slot.and_then(|k| SLOTS_IN_USE.get(k)) {
            // Out of reach of the handler first, then free.
            s.end.store(usize::MAX, Ordering::Release);
            s.start.store(0, Ordering::Release);
            s.end.store(0, Ordering::Release);
        }
    }
}

/// The slot whose map holds `addr`, if any.
fn slot_of(addr: usize) -> Option<&'static Slot> {
    SLOTS_IN_USE.iter().find(|s| {
        let end = s.end.load(Ordering::Acquire);
        end != 0 && end != usize::MAX && s.start.load(Ordering::Acquire) <= addr && addr < end
    })
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod sys {
    use super::slot_of;
    use std::ffi::c_void;
    use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
    use std::sync::OnceLock;

    const SIGBUS: i32 = 7;
    const SA_SIGINFO: i32 = 4;
    const SA_ONSTACK: i32 = 0x0800_0000;
    const SIG_DFL: usize = 0;
    const SIG_IGN: usize = 1;
    const PROT_READ: i32 = 1;
    const MAP_PRIVATE: i32 = 0x02;
    const MAP_FIXED: i32 = 0x10;
    const MAP_ANONYMOUS: i32 = 0x20;
    const PAGE: usize = 4096;

    /// `struct sigaction` of glibc and musl on Linux x86_64 and aarch64.
    #[repr(C)]
    struct SigAction {
        sa_sigaction: usize,
        sa_mask: [u64; 16],
        sa_flags: i32,
        sa_restorer: usize,
    }

    /// The head of `siginfo_t` on 64-bit Linux: `si_addr` for SIGBUS.
    #[repr(C)]
    struct SigInfo {
        si_signo: i32,
        si_errno: i32,
        si_code: i32,
        _pad: i32,
        si_addr: usize,
    }

    extern "C" {
        fn sigaction(sig: i32, act: *const SigAction, old: *mut SigAction) -> i32;
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: i32,
            flags: i32,
            fd: i32,
            off: i64,
        ) -> *mut c_void;
    }

    /// The handler that was installed before ours, to pass other faults on.
    static OLD_HANDLER: AtomicUsize = AtomicUsize::new(SIG_DFL);
    static OLD_FLAGS: AtomicI32 = AtomicI32::new(0);

    extern "C" fn on_sigbus(sig: i32, info: *mut SigInfo, ctx: *mut c_void) {
        // SAFETY: the kernel passes a valid siginfo_t for an SA_SIGINFO
        // handler; only its head, common to every layout, is read.
        let addr = if info.is_null() {
            0
        } else {
            unsafe { (*info).si_addr }
        };
        if let Some(slot) = slot_of(addr) {
            let from = addr & !(PAGE - 1);
            let end = slot.end.load(Ordering::Acquire);
            // SAFETY: `from..end` lies inside a registered read-only file
            // map that is alive (its Guard unregisters before the unmap).
            // Replacing those pages with private anonymous zero pages keeps
            // the range mapped and readable, only with other bytes; no
            // Rust reference promises the old bytes stayed the same (the
            // file itself already changed under them).
            let p = unsafe {
                mmap(
                    from as *mut c_void,
                    end - from,
                    PROT_READ,
                    MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p as usize == from {
                slot.faulted.store(true, Ordering::Release);
                return;
            }
        }
        let old = OLD_HANDLER.load(Ordering::Acquire);
        if old != SIG_DFL && old != SIG_IGN && OLD_FLAGS.load(Ordering::Acquire) & SA_SIGINFO != 0 {
            // SAFETY: `old` is the SA_SIGINFO handler sigaction returned.
            let f: extern "C" fn(i32, *mut SigInfo, *mut c_void) =
                unsafe { std::mem::transmute(old) };
            f(sig, info, ctx);
            return;
        }
        if old != SIG_DFL && old != SIG_IGN {
            // SAFETY: `old` is the plain handler sigaction returned.
            let f: extern "C" fn(i32) = unsafe { std::mem::transmute(old) };
            f(sig);
            return;
        }
        // No one else handles it: the default action, as if we were never
        // here (the read faults again and the process ends by SIGBUS).
        let dfl = SigAction {
            sa_sigaction: SIG_DFL,
            sa_mask: [0; 16],
            sa_flags: 0,
            sa_restorer: 0,
        };
        // SAFETY: a valid sigaction with the default disposition.
        unsafe { sigaction(SIGBUS, &dfl, std::ptr::null_mut()) };
    }

    /// Installs the handler once; whether it is in place.
    pub fn install() -> bool {
        static DONE: OnceLock<bool> = OnceLock::new();
        *DONE.get_or_init(|| {
            let act = SigAction {
                sa_sigaction: on_sigbus as extern "C" fn(i32, *mut SigInfo, *mut c_void) as usize,
                sa_mask: [0; 16],
                sa_flags: SA_SIGINFO | SA_ONSTACK,
                sa_restorer: 0,
            };
            let mut old = SigAction {
                sa_sigaction: SIG_DFL,
                sa_mask: [0; 16],
                sa_flags: 0,
                sa_restorer: 0,
            };
            // SAFETY: both pointers are valid for the call; the handler
            // only touches atomics, mmap and sigaction.
            let rc = unsafe { sigaction(SIGBUS, &act, &mut old) };
            if rc != 0 {
                return false;
            }
            OLD_FLAGS.store(old.sa_flags, Ordering::Release);
            OLD_HANDLER.store(old.sa_sigaction, Ordering::Release);
            true
        })
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
mod sys {
    /// No guard off Linux x86_64/aarch64.
    pub fn install() -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_claimed_and_freed() {
        let a = [0u8; 64];
        let g = Guard::new(a.as_ptr(), a.len());
        if g.slot.is_some() {
            let at = a.as_ptr() as usize;
            assert!(slot_of(at).is_some());
            assert!(slot_of(at + 63).is_some());
            assert!(!g.faulted());
        }
        drop(g);
        assert!(slot_of(a.as_ptr() as usize).is_none());
    }
}
