package sim

// LogGOPSim orders the operations a host frees together with std::sort on
// their type (send < recv < calc). std::sort is not stable: with GCC's
// libstdc++ it is an introsort (median-of-three pivot, unguarded
// partition, heapsort fallback) down to runs of 16 followed by an
// insertion sort, so beyond 16 operations the order of equal types, and
// through it the tie-breaking of the event queue, depends on that exact
// algorithm. stdSort reproduces it. Checked against g++ 12's output in
// testdata/libstdcxx_sort.txt (made by testdata/libstdcxx_sort.cpp).

const sortThreshold = 16

func lessType(a, b *readyOp) bool { return a.typ < b.typ }

func stdSort(a []readyOp) {
	n := len(a)
	if n < 2 {
		return
	}
	depth := 0
	for m := n; m > 1; m >>= 1 {
		depth++
	}
	introsortLoop(a, 0, n, 2*depth)
	finalInsertionSort(a, 0, n)
}

func introsortLoop(a []readyOp, first, last, depth int) {
	for last-first > sortThreshold {
		if depth == 0 {
			heapSort(a[first:last])
			return
		}
		depth--
		mid := first + (last-first)/2
		moveMedianToFirst(a, first, first+1, mid, last-1)
		cut := unguardedPartition(a, first+1, last, first)
		introsortLoop(a, cut, last, depth)
		last = cut
	}
}

func moveMedianToFirst(a []readyOp, result, x, y, z int) {
	switch {
	case lessType(&a[x], &a[y]):
		switch {
		case lessType(&a[y], &a[z]):
			a[result], a[y] = a[y], a[result]
		case lessType(&a[x], &a[z]):
			a[result], a[z] = a[z], a[result]
		default:
			a[result], a[x] = a[x], a[result]
		}
	case lessType(&a[x], &a[z]):
		a[result], a[x] = a[x], a[result]
	case lessType(&a[y], &a[z]):
		a[result], a[z] = a[z], a[result]
	default:
		a[result], a[y] = a[y], a[result]
	}
}

func unguardedPartition(a []readyOp, first, last, pivot int) int {
	for {
		for lessType(&a[first], &a[pivot]) {
			first++
		}
		last--
		for lessType(&a[pivot], &a[last]) {
			last--
		}
		if first >= last {
			return first
		}
		a[first], a[last] = a[last], a[first]
		first++
	}
}

func finalInsertionSort(a []readyOp, first, last int) {
	if last-first > sortThreshold {
		insertionSort(a, first, first+sortThreshold)
		for i := first + sortThreshold; i < last; i++ {
			unguardedLinearInsert(a, i)
		}
		return
	}
	insertionSort(a, first, last)
}

func insertionSort(a []readyOp, first, last int) {
	for i := first + 1; i < last; i++ {
		if lessType(&a[i], &a[first]) {
			v := a[i]
			copy(a[first+1:i+1], a[first:i])
			a[first] = v
		} else {
			unguardedLinearInsert(a, i)
		}
	}
}

func unguardedLinearInsert(a []readyOp, last int) {
	v := a[last]
	next := last - 1
	for lessType(&v, &a[next]) {
		a[last] = a[next]
		last = next
		next--
	}
	a[last] = v
}

// heapSort is libstdc++'s __partial_sort(first, last, last): make_heap,
// then sort_heap.
func heapSort(h []readyOp) {
	n := len(h)
	if n >= 2 {
		for parent := (n - 2) / 2; ; parent-- {
			adjustHeap(h, parent, n, h[parent])
			if parent == 0 {
				break
			}
		}
	}
	for end := n; end > 1; {
		end--
		v := h[end]
		h[end] = h[0]
		adjustHeap(h, 0, end, v)
	}
}

func adjustHeap(h []readyOp, hole, n int, v readyOp) {
	top := hole
	child := hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if lessType(&h[child], &h[child-1]) {
			child--
		}
		h[hole] = h[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		h[hole] = h[child-1]
		hole = child - 1
	}
	parent := (hole - 1) / 2
	for hole > top && lessType(&h[parent], &v) {
		h[hole] = h[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	h[hole] = v
}
