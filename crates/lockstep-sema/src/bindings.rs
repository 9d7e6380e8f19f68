//! Register assignment for resources, following DXC: explicit
//! `register(...)` bindings are checked first (class and overlap), then
//! every resource without one gets, per register class in space 0, the
//! lowest free index in declaration order. `$Globals` is allocated before
//! the other implicit constant buffers, as DXC does (it is the module's
//! first constant buffer there), so it is `b0` unless `b0` is taken.

use std::collections::HashMap;

use crate::context::Sema;

/// A register: class (`t`, `u`, `b`), index and space.
type Register = (char, u32, u32);

impl Sema<'_> {
    /// Gives every resource its register.
    pub fn assign_bindings(&mut self) {
        let mut owners = self.bind_explicit();
        self.bind_implicit(&mut owners);
    }

    /// Checks and applies the explicit bindings; returns the registers used.
    fn bind_explicit(&mut self) -> HashMap<Register, String> {
        let mut owners: HashMap<Register, String> = HashMap::new();
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
            if let Some(other) = owners.get(&key) {
                let message = format!(
                    "register {class}{} space{} is already bound to '{other}'",
                    binding.index, binding.space
                );
                self.error(binding.span, message);
                continue;
            }
            owners.insert(key, name);
            let r = &mut self.module.resources[i];
            r.register = binding.index;
            r.space = binding.space;
        }
        owners
    }

    /// Whether resource `i` is an element of an array other than its first.
    fn in_array(&self, i: usize) -> bool {
        self.resource_arrays
            .iter()
            .any(|&(first, count)| first < i && i < first + count as usize)
    }

    /// Gives each resource without a binding the lowest free register of
    /// its class in space 0.
    fn bind_implicit(&mut self, owners: &mut HashMap<Register, String>) {
        let mut order: Vec<usize> = (0..self.module.resources.len()).collect();
        if let Some(g) = self.globals_cb {
            order.retain(|&i| i != g.index());
            order.insert(0, g.index());
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
            let index = match next_in_array.take() {
                Some(index) => index,
                None => (0u32..)
                    .find(|&n| {
                        (n..n.saturating_add(count)).all(|k| !owners.contains_key(&(class, k, 0)))
                    })
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
