// setns(), eventfd() and pthread_setname_np() are declared by glibc only with _GNU_SOURCE, which
// Swift's Glibc module is not built with; these wrappers are compiled with it.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>

#include "shim.h"

int sluice_enter_network_namespace(int fd) {
    return setns(fd, CLONE_NEWNET);
}

int sluice_make_wake_descriptor(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int sluice_name_current_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
