"""torch.utils.data against real torch: the same seed gives the same batches in the same order
(shuffle, random_split, weighted and replacement sampling) and leaves the global generator
where torch leaves it; collate, drop_last, samplers and errors as torch's."""

from __future__ import annotations

import pytest


def _ds(ns, n=23):
    return ns.utils.data.TensorDataset(ns.arange(float(n)).view(n, 1), ns.arange(n))


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40 + 123])
@pytest.mark.parametrize(
    "n,batch,drop", [(23, 5, False), (16, 4, True), (7, 3, True), (1, 2, False)]
)
def test_shuffled_order_and_rng_stream_equal_torchs(T, torch, seed, n, batch, drop):
    def run(ns):
        ns.manual_seed(seed)
        dl = ns.utils.data.DataLoader(_ds(ns, n), batch_size=batch, shuffle=True, drop_last=drop)
        epochs = [[yb.tolist() for _, yb in dl] for _ in range(2)]
        return epochs, len(dl), ns.rand(3).tolist()

    assert run(T) == run(torch)


def test_generator_argument_and_random_split(T, torch):
    def run(ns):
        ns.manual_seed(0)
        g = ns.Generator().manual_seed(3)
        dl = ns.utils.data.DataLoader(_ds(ns), batch_size=4, shuffle=True, generator=g)
        order = [b[1].tolist() for b in dl]
        a, b = ns.utils.data.random_split(_ds(ns), [0.7, 0.3])
        g42 = ns.Generator().manual_seed(42)
        c = ns.utils.data.random_split(range(10), [3, 3, 4], generator=g42)
        return order, a.indices, b.indices, [list(s) for s in c], ns.rand(2).tolist()

    assert run(T) == run(torch)


def test_samplers_equal_torchs(T, torch):
    def run(ns):
        D = ns.utils.data
        ns.manual_seed(5)
        return (
            list(D.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 7, replacement=True)),
            list(D.WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False)),
            list(D.RandomSampler(range(10), replacement=True, num_samples=40)),
            list(D.RandomSampler(range(4), num_samples=10)),
            list(D.SubsetRandomSampler([10, 20, 30, 40])),
            list(D.BatchSampler(D.SequentialSampler(range(10)), 3, drop_last=False)),
            list(D.BatchSampler(D.SequentialSampler(range(10)), 3, drop_last=True)),
        )

    assert run(T) == run(torch)


def test_default_collate_shapes_and_types(T, torch):
    def run(ns):
        D = ns.utils.data

        class Records(D.Dataset):
            def __len__(self):
                return 5

            def __getitem__(self, i):
                return {"x": float(i), "y": i * i, "name": f"s{i}", "t": ns.tensor([i, -i])}

        out = []
        for batch in D.DataLoader(Records(), batch_size=2):
            out.append({k: (type(v).__name__, str(v)) for k, v in batch.items()})
        pairs = list(D.DataLoader([(1, 2.5), (3, 4.5)], batch_size=2))
        out.append([str(b) for b in pairs[0]] + [type(pairs[0]).__name__])
        out.append(str(list(D.DataLoader(Records(), batch_size=None))[0]["t"]))
        out.append(list(D.DataLoader(_ds(ns), batch_size=6, collate_fn=len)))
        return out

    assert run(T) == run(torch)


def test_iterable_concat_and_subset(T, torch):
    def run(ns):
        D = ns.utils.data

        class Count(D.IterableDataset):
            def __iter__(self):
                return iter(range(11))

        cat = D.ConcatDataset([D.Subset(_ds(ns), [0, 1]), D.Subset(_ds(ns), [5, 6, 7])])
        return (
            [b.tolist() for b in D.DataLoader(Count(), batch_size=4)],
            [b.tolist() for b in D.DataLoader(Count(), batch_size=4, drop_last=True)],
            len(cat),
            [t.tolist() for t in cat[-1]],
            [t.tolist() for t in cat[2]],
        )

    assert run(T) == run(torch)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"batch_size": 2, "shuffle": True, "sampler": "seq"},
        {"batch_sampler": "batches", "batch_size": 3},
        {"num_workers": -1},
        {"batch_size": None, "drop_last": True},
        {"prefetch_factor": 2},
        {"persistent_workers": True},
    ],
)
def test_bad_arguments_raise_torchs_errors(T, torch, kwargs):
    msgs = []
    for ns in (T, torch):
        D = ns.utils.data
        ds = _ds(ns)
        kw = dict(kwargs)
        if kw.get("sampler") == "seq":
            kw["sampler"] = D.SequentialSampler(ds)
        if kw.get("batch_sampler") == "batches":
            kw["batch_sampler"] = D.BatchSampler(D.SequentialSampler(ds), 2, False)
        with pytest.raises(ValueError) as e:
            D.DataLoader(ds, **kw)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_random_split_errors(T, torch):
    for ns in (T, torch):
        with pytest.raises(ValueError, match="Sum of input lengths"):
            ns.utils.data.random_split(_ds(ns), [3, 4])
        with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
            ns.utils.data.random_split(_ds(ns), [0.5, -0.5, 1.0])


def test_workers_run_in_process_with_a_warning(T):
    with pytest.warns(UserWarning, match="main process"):
        dl = T.utils.data.DataLoader(_ds(T), batch_size=10, num_workers=2)
    assert [b[1].tolist() for b in dl][-1] == [20, 21, 22]
