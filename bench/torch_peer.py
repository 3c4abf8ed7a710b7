#!/usr/bin/python3
"""PyTorch eager peer of bench/cpu_bench.cc: the same workloads, same shapes.

Run by cpu_bench through popen (with OMP_NUM_THREADS set to the thread
count); also runnable by hand:

    OMP_NUM_THREADS=2 /usr/bin/python3 bench/torch_peer.py [--threads=2]

Prints one machine-readable line per workload:

    torch_peer name=NAME best_s=SECONDS median_s=SECONDS runs=N

(seconds per execution) and one `torch_peer_config ...` line first with the
torch version, the thread count and the BLAS library in use. Every workload
is warmed up, then timed run by run (time.perf_counter), about 1.5 s or at
least 5 runs; the one-element add is timed in loops of 10000 and divided.
Everything runs under torch.inference_mode() (no autograd bookkeeping).
"""
import os
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def blas_in_use():
    """The BLAS torch links against, from its build config and the process's
    mapped libraries (Debian's torch uses whichever libblas.so.3 the
    alternatives system points to)."""
    config = torch.__config__.show()
    m = re.search(r"BLAS_INFO=([^,\s]+)", config)
    info = m.group(1) if m else "unknown"
    torch.mm(torch.ones(64, 64), torch.ones(64, 64))  # make sure it is loaded
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                base = os.path.basename(path)
                if re.search(r"(openblas|libblas|mkl|blis|atlas)", base):
                    libs.add(os.path.realpath(path))
    except OSError:
        pass
    mkldnn = torch.backends.mkldnn.is_available()
    return info, sorted(libs), mkldnn


def time_fn(fn, seconds=1.5, min_runs=5, max_runs=200):
    fn()
    fn()
    start = time.perf_counter()
    fn()
    one = max(time.perf_counter() - start, 1e-6)
    runs = int(min(max(seconds / one, min_runs), max_runs))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times), runs


def report(name, best, median, runs):
    print(f"torch_peer name={name} best_s={best:.9g} median_s={median:.9g} "
          f"runs={runs}", flush=True)


def main():
    threads = 2
    only = None
    for arg in sys.argv[1:]:
        if arg.startswith("--threads="):
            threads = int(arg.split("=", 1)[1])
        elif arg.startswith("--only="):
            only = set(arg.split("=", 1)[1].split(","))
    torch.set_num_threads(threads)
    info, libs, mkldnn = blas_in_use()
    print(f"torch_peer_config version={torch.__version__} "
          f"threads={torch.get_num_threads()} blas_info={info} "
          f"blas_libs={','.join(libs) or 'none-mapped'} mkldnn={int(mkldnn)}",
          flush=True)
    gen = torch.Generator().manual_seed(0)

    def rand(*shape, scale=1.0):
        return (torch.rand(*shape, generator=gen) * 2 - 1) * scale

    def want(name):
        return only is None or name in only

    with torch.inference_mode():
        for n in (1024, 2048):
            if want(f"dot_{n}"):
                a, b = rand(n, n), rand(n, n)
                report(f"dot_{n}", *time_fn(lambda: torch.mm(a, b)))
                del a, b
        n = 1 << 24
        if want("fused_tanh"):
            a, b, c = rand(n), rand(n), rand(n)
            report("fused_tanh", *time_fn(lambda: torch.tanh(a * b + c)))
            del a, b, c
        if want("reduce_sum"):
            x = rand(n)
            report("reduce_sum", *time_fn(lambda: torch.sum(x)))
            del x
        if want("softmax"):
            x = rand(4096, 1024, scale=4.0)
            report("softmax", *time_fn(lambda: torch.softmax(x, dim=-1)))

            def composed():
                e = torch.exp(x - torch.amax(x, dim=-1, keepdim=True))
                return e / torch.sum(e, dim=-1, keepdim=True)

            report("softmax_composed", *time_fn(composed))
            del x
        if want("mlp"):
            x = rand(256, 784)
            w1, b1 = rand(784, 1024, scale=0.05), rand(1024, scale=0.05)
            w2, b2 = rand(1024, 1024, scale=0.05), rand(1024, scale=0.05)
            w3, b3 = rand(1024, 10, scale=0.05), rand(10, scale=0.05)

            def mlp():
                h = torch.relu(torch.addmm(b1, x, w1))
                h = torch.relu(torch.addmm(b2, h, w2))
                return torch.addmm(b3, h, w3)

            report("mlp", *time_fn(mlp))
        if want("conv_block"):
            x = rand(8, 64, 56, 56)
            w = rand(64, 64, 3, 3, scale=0.05)
            scale, offset = rand(64), rand(64)
            mean, var = rand(64), torch.rand(64, generator=gen) + 0.5

            def conv_block():
                y = F.conv2d(x, w, padding=1)
                y = F.batch_norm(y, mean, var, weight=scale, bias=offset,
                                 training=False, eps=1e-5)
                return torch.relu(y)

            report("conv_block", *time_fn(conv_block))
        if want("resnet_block"):
            x = rand(8, 64, 56, 56)
            params = []
            for _ in range(2):
                params.append((rand(64, 64, 3, 3, scale=0.05), rand(64),
                               rand(64), rand(64),
                               torch.rand(64, generator=gen) + 0.5))
            def resnet_block():
                y = x
                for i, (w, scale, offset, mean, var) in enumerate(params):
                    y = F.conv2d(y, w, padding=1)
                    y = F.batch_norm(y, mean, var, weight=scale, bias=offset,
                                     training=False, eps=1e-5)
                    if i == 1:
                        y = y + x
                    y = torch.relu(y)
                return y
            report("resnet_block", *time_fn(resnet_block))
        if want("add_scalar1"):
            a, b = rand(1), rand(1)
            loop = 10000

            def adds():
                for _ in range(loop):
                    a + b

            best, median, runs = time_fn(adds, seconds=1.0, min_runs=5)
            report("add_scalar1", best / loop, median / loop, runs * loop)


if __name__ == "__main__":
    main()
