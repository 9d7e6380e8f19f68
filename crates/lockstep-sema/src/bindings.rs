//! Register assignment for resources, following DXC: explicit
//! `register(...)` bindings are checked first (class and overlap), then
//! every resource without one that the entry point uses gets, per register
//! class in space 0, the lowest free index in declaration order (DXC drops
//! unused resources before it allocates, and an unused explicit binding
//! reserves nothing; an unused resource without one takes a register after
//! every used one, so that it still has one). `$Globals` is allocated before
//! the other implicit constant buffers, as DXC does (it is the module's
//! first constant buffer there), so it is `b0` unless `b0` is taken.

use std::collections::{HashMap, HashSet};

use crate::context::Sema;

/// A register: class (`t`, `u`, `b`), index and space.
type Register = (char, u32, u32);

impl Sema<'_> {
    /// Gives every resource its register.
    pub fn assign_bindings(&mut self) {
        let (mut owners, mut unused) = self.bind_explicit();
        self.bind_implicit(&mut owners, &mut unused);
    }

    /// Checks and applies the explicit bindings; returns the registers used.
    /// The registers of the used resources, then of the unused ones.
    fn bind_explicit(&mut self) -> (HashMap<Register, String>, HashMap<Register, String>) {
        let mut owners: HashMap<Register, String> = HashMap::new();
        let mut unused: HashMap<Register, String> = HashMap::new();
        let used = self.resources_used();
        for i in 0..self.module.resources.len() {
            let Some(binding) = self.resource_bindings.get(i).cloned().flatten() else {
                continue;
            };
            let (name, class) = {
                let r = &self.module.resources[i];
                (r.name.clone(), r.kind.register_class())
            };
            if binding.class != class {
                let what = match class {
                    't' => "a read-only resource",
                    'u' => "a read-write resource",
                    _ => "a constant buffer",
                };
                self.error(
                    binding.span,
                    format!(
                        "register '{}{}' cannot bind {what} ('{name}' needs a '{class}' register)",
                        binding.class, binding.index
                    ),
                );
                continue;
            }
            let key = (class, binding.index, binding.space);
            if let Some(other) = owners.get(&key).or(unused.get(&key)) {
                let message = format!(
                    "register {class}{} space{} is already bound to '{other}'",
                    binding.index, binding.space
                );
                self.error(binding.span, message);
                continue;
            }
            // An unused resource reserves its register only against other
            // unused ones (DXC removes it first).
            if used.as_ref().is_some_and(|u| !u.contains(&i)) {
                unused.insert(key, name);
            } else {
                owners.insert(key, name);
            }
            let r = &mut self.module.resources[i];
            r.register = binding.index;
            r.space = binding.space;
        }
        (owners, unused)
    }

    /// The resources the functions the entry point reaches name, or `None`
    /// without an entry point.
    fn resources_used(&self) -> Option<HashSet<usize>> {
        let list = self.functions.get(&self.opts.entry)?;
        let root = list
            .iter()
            .find(|&&i| self.fn_syms[i].defined)
            .and_then(|&i| self.fn_syms[i].id)?;
        let mut seen = HashSet::from([root]);
        let mut stack = vec![root];
        let mut used = HashSet::new();
        while let Some(f) = stack.pop() {
            let body = &self.module.functions[f.index()].body;
            lockstep_ir::walk::each_resource(body, &mut |r| {
                used.insert(r.index());
            });
            for &(callee, _) in self.call_graph.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(callee) {
                    stack.push(callee);
                }
            }
        }
        // A counter is used with its buffer.
        for (i, r) in self.module.resources.iter().enumerate() {
            if r.counter_of.is_some_and(|b| used.contains(&b.index())) {
                used.insert(i);
            }
        }
        Some(used)
    }

    /// Whether resource `i` is an element of an array other than its first.
    fn in_array(&self, i: usize) -> bool {
        self.resource_arrays
            .iter()
            .any(|&(first, count)| first < i && i < first + count as usize)
    }

    /// Gives each resource without a binding the lowest free register of
    /// its class in space 0.
    fn bind_implicit(
        &mut self,
        owners: &mut HashMap<Register, String>,
        unused: &mut HashMap<Register, String>,
    ) {
        let mut order: Vec<usize> = (0..self.module.resources.len()).collect();
        if let Some(g) = self.globals_cb {
            order.retain(|&i| i != g.index());
            order.insert(0, g.index());
        }
        // Used resources first (an array counts as used when any element
        // is), each group in declaration order.
        let used = self.resources_used();
        let is_used = |i: usize| used.as_ref().is_none_or(|u| u.contains(&i));
        if let Some(used) = &used {
            let first_of = |i: usize| {
                self.resource_arrays
                    .iter()
                    .find(|&&(first, count)| first <= i && i < first + count as usize)
                    .map_or(i, |&(first, _)| first)
            };
            let used_arrays: HashSet<usize> = used.iter().map(|&i| first_of(i)).collect();
            let (mut first, later): (Vec<usize>, Vec<usize>) = order
                .into_iter()
                .partition(|&i| used_arrays.contains(&first_of(i)));
            first.extend(later);
            order = first;
        }
        let mut next_in_array = None;
        for i in order {
            let hidden = self.module.resources[i].counter_of.is_some();
            if hidden || self.resource_bindings.get(i).cloned().flatten().is_some() {
                continue;
            }
            let class = self.module.resources[i].kind.register_class();
            // The elements of an array take a run of free registers.
            let count = self
                .resource_arrays
                .iter()
                .find(|&&(first, _)| first == i)
                .map_or(1, |&(_, count)| count);
            // A used resource avoids the used ones' registers; an unused one
            // every register, so that no two share one.
            let taken = |k: u32| {
                owners.contains_key(&(class, k, 0))
                    || (!is_used(i) && unused.contains_key(&(class, k, 0)))
            };
            let index = match next_in_array.take() {
                Some(index) => index,
                None => (0u32..)
                    .find(|&n| (n..n.saturating_add(count)).all(|k| !taken(k)))
                    .unwrap_or(0),
            };
            next_in_array = self.in_array(i + 1).then_some(index + 1);
            let r = &mut self.module.resources[i];
            owners.insert((class, index, 0), r.name.clone());
            r.register = index;
            r.space = 0;
        }
    }
}
