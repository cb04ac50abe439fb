package safefile

import "syscall"

const noFollow = syscall.O_NOFOLLOW
