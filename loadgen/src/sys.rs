//! The few OS facts the engine needs: file-descriptor limit, CPU accounting, affinity.

/// Raises the soft RLIMIT_NOFILE to the hard limit (10,000 keep-alive users need 10,000
/// sockets; the usual soft default is 1024). Returns the soft limit now in force.
pub fn raise_nofile() -> u64 {
    // SAFETY: getrlimit/setrlimit only read/write the struct we pass.
    unsafe {
        let mut rl = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) != 0 {
            return 0;
        }
        if rl.rlim_cur < rl.rlim_max {
            let want = libc::rlimit {
                rlim_cur: rl.rlim_max,
                rlim_max: rl.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &want) == 0 {
                return want.rlim_cur;
            }
        }
        rl.rlim_cur
    }
}

pub struct Usage {
    pub user_s: f64,
    pub system_s: f64,
    pub max_rss_kb: u64,
}

/// CPU seconds and peak RSS of this process (all threads).
pub fn usage() -> Usage {
    // SAFETY: getrusage fills the zeroed struct we pass.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut ru) != 0 {
            return Usage {
                user_s: 0.0,
                system_s: 0.0,
                max_rss_kb: 0,
            };
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Usage {
            user_s: secs(ru.ru_utime),
            system_s: secs(ru.ru_stime),
            // Linux reports ru_maxrss in kilobytes.
            max_rss_kb: ru.ru_maxrss.max(0) as u64,
        }
    }
}

/// CPUs this process may run on (its affinity mask, as set by `taskset`).
pub fn affinity_cpus() -> usize {
    // SAFETY: sched_getaffinity fills the zeroed cpu_set_t we pass, of the size we give.
    let n = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
            libc::CPU_COUNT(&set) as usize
        } else {
            0
        }
    };
    if n > 0 {
        n
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    }
}

/// A sleep with microsecond precision for the open model's arrival schedule.
///
/// tokio's timer wheel fires on millisecond ticks, so arrivals would leave up to 1 ms late,
/// in bursts, and since latency is taken from the intended start that lateness would be
/// charged to the server (~0.5 ms on average: more than a loopback GET takes). A timerfd
/// wakes the reactor at the exact instant instead. Falls back to tokio's timer if the
/// timerfd cannot be created.
pub struct PreciseTimer {
    fd: Option<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>>,
}

impl PreciseTimer {
    /// Must be called inside a tokio runtime.
    pub fn new() -> PreciseTimer {
        use std::os::fd::FromRawFd;
        // SAFETY: timerfd_create returns a new descriptor (or -1) that we then own.
        let raw = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        let fd = if raw >= 0 {
            // SAFETY: raw is a valid descriptor owned by nobody else; the OwnedFd keeps it open
            // for as long as the AsyncFd that owns it.
            unsafe {
                let owned = std::os::fd::OwnedFd::from_raw_fd(raw);
                tokio::io::unix::AsyncFd::register_with_interest(
                    owned,
                    tokio::io::Interest::READABLE,
                )
                .ok()
            }
        } else {
            None
        };
        PreciseTimer { fd }
    }

    pub async fn sleep_until(&self, deadline: std::time::Instant) {
        use std::os::fd::AsRawFd;
        let Some(fd) = &self.fd else {
            tokio::time::sleep_until(deadline.into()).await;
            return;
        };
        let wait = deadline.saturating_duration_since(std::time::Instant::now());
        if wait.is_zero() {
            return;
        }
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: wait.as_secs() as libc::time_t,
                tv_nsec: wait.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: arming our own timerfd with a valid itimerspec.
        let armed =
            unsafe { libc::timerfd_settime(fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        if armed != 0 {
            tokio::time::sleep_until(deadline.into()).await;
            return;
        }
        loop {
            let Ok(mut guard) = fd.readable().await else {
                tokio::time::sleep_until(deadline.into()).await;
                return;
            };
            let mut expirations = [0u8; 8];
            // SAFETY: reading 8 bytes into an 8-byte buffer from our own timerfd.
            let n = unsafe { libc::read(fd.as_raw_fd(), expirations.as_mut_ptr().cast(), 8) };
            if n == 8 {
                return;
            }
            guard.clear_ready();
            if std::time::Instant::now() >= deadline {
                return;
            }
        }
    }
}
