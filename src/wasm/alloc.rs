//! The module's memory allocator: free lists by power-of-two size, carved from `memory.grow`.
//!
//! The binding allocates little and in few sizes (the holder's state, closures, short strings,
//! output lists), and the same sizes again on every renewal, so a freed block is soon reused at
//! its own size. That needs no splitting, merging or searching, which keeps this a few hundred
//! bytes where the standard library's general-purpose allocator is about 8 KB of the module. A
//! block wastes at most half its size; memory is never returned to the host, as with any
//! WebAssembly allocator (memory cannot shrink).

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ptr::{self, null_mut};

/// A WebAssembly page.
const PAGE: usize = 65_536;
/// The smallest block: room for the free-list link, and 8-byte alignment.
const MIN_BLOCK_SHIFT: u32 = 3;
/// Block sizes are `8 << class` for `class < CLASSES`: up to 2 GiB.
const CLASSES: usize = 29;

struct Heap {
    /// The first free block of each size class; each free block stores the next one's address.
    free: [*mut u8; CLASSES],
    /// The start of the untouched part of the current region, and its end.
    next: usize,
    end: usize,
}

/// The allocator. One thread only: this build has no shared memory.
pub struct Allocator(UnsafeCell<Heap>);

// SAFETY: the module runs on one thread (no `atomics` target feature), so the heap is never
// touched concurrently.
unsafe impl Sync for Allocator {}

impl Allocator {
    /// An empty heap; its first allocation grows the memory.
    pub const fn new() -> Allocator {
        Allocator(UnsafeCell::new(Heap {
            free: [null_mut(); CLASSES],
            next: 0,
            end: 0,
        }))
    }
}

/// The size class of `layout`: the smallest block that holds its size and its alignment.
fn class_of(layout: Layout) -> Option<usize> {
    if layout.align() > PAGE {
        return None;
    }
    let size = layout
        .size()
        .max(layout.align())
        .checked_next_power_of_two()?;
    let class = size.trailing_zeros().saturating_sub(MIN_BLOCK_SHIFT) as usize;
    (class < CLASSES).then_some(class)
}

impl Heap {
    /// A new block of `class`, aligned to its size (at most a page), from the current region or
    /// from memory grown for it.
    fn carve(&mut self, class: usize) -> *mut u8 {
        let size = 8usize << class;
        let align = size.min(PAGE);
        let mut start = align_up(self.next, align);
        if start.checked_add(size).is_none_or(|end| end > self.end) {
            let pages = (size + align).div_ceil(PAGE);
            let previous = core::arch::wasm32::memory_grow(0, pages);
            if previous == usize::MAX {
                return null_mut();
            }
            let base = previous * PAGE;
            // Continue the current region if the new pages extend it; else start afresh.
            if base != self.end {
                self.next = base;
            }
            self.end = base + pages * PAGE;
            start = align_up(self.next, align);
        }
        self.next = start + size;
        start as *mut u8
    }
}

fn align_up(address: usize, align: usize) -> usize {
    (address + align - 1) & !(align - 1)
}

// SAFETY: every block handed out is `8 << class` bytes, aligned to its size up to a page, which
// covers the layout's size and alignment (`class_of`); a block is on a free list only after its
// owner deallocated it, and is taken off before it is handed out again.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else {
            return null_mut();
        };
        let heap = &mut *self.0.get();
        // `get_mut`, not indexing: `class_of` keeps it in range, and this keeps panics out.
        let Some(free) = heap.free.get_mut(class) else {
            return null_mut();
        };
        let block = *free;
        if block.is_null() {
            return heap.carve(class);
        }
        *free = block.cast::<*mut u8>().read();
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let heap = &mut *self.0.get();
        if let Some(free) = class_of(layout).and_then(|class| heap.free.get_mut(class)) {
            block.cast::<*mut u8>().write(*free);
            *free = block;
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        // Growing within the block's size class (a string or list growing a little) stays put.
        if class_of(layout) == class_of(new_layout) {
            return block;
        }
        let moved = self.alloc(new_layout);
        if !moved.is_null() {
            ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
            self.dealloc(block, layout);
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn classes_cover_size_and_alignment() {
        let class = |size, align| class_of(Layout::from_size_align(size, align).unwrap());
        assert_eq!(class(1, 1), Some(0));
        assert_eq!(class(8, 8), Some(0));
        assert_eq!(class(9, 1), Some(1));
        assert_eq!(class(3, 64), Some(3));
        assert_eq!(class((1 << 30) + 1, 1), Some(28));
        assert_eq!(class(1, PAGE * 2), None);
    }

    #[wasm_bindgen_test]
    fn blocks_are_reused_by_size_and_never_overlap() {
        let heap = Allocator::new();
        unsafe {
            let layouts: Vec<Layout> = [1, 8, 24, 100, 3000, 70_000]
                .iter()
                .map(|&size| Layout::from_size_align(size, 8).unwrap())
                .collect();
            let mut live: Vec<(*mut u8, Layout)> = Vec::new();
            for round in 0..50u8 {
                for &layout in &layouts {
                    let block = heap.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block as usize % layout.align(), 0);
                    block.write_bytes(round, layout.size());
                    live.push((block, layout));
                }
                // Free every other block, then check the survivors kept their bytes.
                let (freed, kept): (Vec<_>, Vec<_>) =
                    live.drain(..).enumerate().partition(|(i, _)| i % 2 == 0);
                for (_, (block, layout)) in freed {
                    heap.dealloc(block, layout);
                }
                live = kept.into_iter().map(|(_, entry)| entry).collect();
                for &(block, layout) in &live {
                    let first = block.read();
                    assert!((0..layout.size()).all(|i| block.add(i).read() == first));
                }
            }
            // A freed block comes back for the next request of its size class.
            let layout = Layout::from_size_align(40, 8).unwrap();
            let block = heap.alloc(layout);
            heap.dealloc(block, layout);
            assert_eq!(heap.alloc(Layout::from_size_align(60, 4).unwrap()), block);
            // Growing within the class stays put; beyond it moves and keeps the bytes.
            block.write_bytes(7, 60);
            assert_eq!(heap.realloc(block, layout, 64), block);
            let moved = heap.realloc(block, layout, 65);
            assert_ne!(moved, block);
            assert!((0..40).all(|i| moved.add(i).read() == 7));
        }
    }
}
