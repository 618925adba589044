//! The parts of a procedure's verification condition (`proofs/vcgen.md`, V11).
//!
//! A kernel's thread procedure holds every check of the kernel, and one query about all of them
//! costs the solver more than its size: a barrier forgets the heap and takes the masks away, so
//! the checks between two barriers involve facts of their own, but the solver is given all of
//! them at once. Here the passive commands are sorted by the symbols they share (incarnations,
//! not the thread's ids or the launch's sizes, which every command mentions): two commands are
//! in one component when a chain of commands links them through symbols. A part asks the checks
//! of some components, with the commands of those components, the facts about the constants
//! alone (the launch, the precondition's bounds), the definitions of the incarnations that are
//! only names for expressions of constants (`int i := lid;`), and the guards of the branches its
//! commands lie in. Everything it leaves out shares no symbol with what it keeps.
//!
//! A part is a weaker premise than the whole: it drops assumptions, never adds any. So a check a
//! part verifies holds in the whole procedure too; a check a part fails, or cannot decide, is
//! asked again of the whole verification condition, whose answer stands (`verify`). Parts only
//! make verification faster; which verdicts there are, and their models, the whole VC decides.

use super::{Analysis, Passive, Role, Selection};
use crate::ivl::Type;
use crate::smt::Term;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A procedure with fewer passive commands than this is asked whole. For a small query a part
/// only repeats the shared facts; and a part of a procedure of middling size, without facts the
/// whole holds, can cost z3 more than the whole. Measured over the examples and the tests'
/// kernels, splitting from 500 commands instead of 1,000 took 0.7 % more of z3's work on the
/// examples (the odd-even sorts 10 to 60 % more each), halved it for `pingpong` with 32 barriers
/// (918 commands: 0.89 s to 0.32 s) and cut a bit-vector test kernel's from 290 to 5 million, with
/// every verdict the same.
const SPLIT_FROM: usize = 500;

/// Components are put together into parts of at least this many commands, so that the facts
/// every part repeats, and each query's fixed cost, stay small against the part's own.
const PART_SIZE: usize = 300;

/// What the commands of a procedure are to the parts: the component of each, which symbols are
/// constants, and which definitions only name an expression of constants.
struct Sorting<'a> {
    analysis: &'a Analysis<'a>,
    /// The component of each command, by block and place; `None` for a command about constants
    /// (and constant-like names) alone.
    component: Vec<Vec<Option<usize>>>,
    /// The incarnations that only name an expression of constants, with their definitions (block,
    /// place).
    named: HashMap<&'a str, (usize, usize)>,
    /// The incarnations each command mentions that are such names.
    names_used: Vec<Vec<Vec<&'a str>>>,
    /// How many commands each component has.
    size: Vec<usize>,
    /// The blocks each block is control dependent on: the branch blocks whose guard decides
    /// whether it runs.
    controls: Vec<Vec<usize>>,
}

/// Union-find over symbols.
struct Components {
    parent: Vec<usize>,
}

impl Components {
    fn find(&mut self, mut item: usize) -> usize {
        while self.parent[item] != item {
            self.parent[item] = self.parent[self.parent[item]];
            item = self.parent[item];
        }
        item
    }

    fn union(&mut self, first: usize, second: usize) {
        let (first, second) = (self.find(first), self.find(second));
        if first != second {
            self.parent[first.max(second)] = first.min(second);
        }
    }
}

fn term(command: &Passive) -> &Term {
    match command {
        Passive::Assume(term, _) | Passive::Assert(_, term) => term,
    }
}

impl<'a> Sorting<'a> {
    fn of(analysis: &'a Analysis<'a>) -> Sorting<'a> {
        let passive = &analysis.passive;
        let index: HashMap<&str, usize> = passive
            .incarnations
            .list
            .iter()
            .enumerate()
            .map(|(position, (name, _))| (name.as_str(), position))
            .collect();
        // A scalar parameter that never changes is a constant (the thread's ids); a local that
        // never changes is not (a fresh amount, named in a few commands only).
        let mut incarnations_of: HashMap<&str, usize> = HashMap::new();
        for (name, _) in &passive.incarnations.list {
            *incarnations_of.entry(variable_of(name)).or_default() += 1;
        }
        let constant: Vec<bool> = passive
            .incarnations
            .list
            .iter()
            .map(|(name, ty)| {
                let variable = variable_of(name);
                !matches!(ty, Type::Map(..)) && analysis.parameters.contains(variable) && incarnations_of[variable] == 1
            })
            .collect();
        let order = super::topological_order(&analysis.blocks);
        // The definitions of each incarnation, for the names of expressions of constants.
        let mut definitions: HashMap<&str, usize> = HashMap::new();
        for commands in &passive.blocks {
            for command in commands {
                if let Passive::Assume(Term::App(_, operands), Role::Definition | Role::Join) = command {
                    if let Some(Term::Symbol(defined)) = operands.first() {
                        *definitions.entry(defined.as_str()).or_default() += 1;
                    }
                }
            }
        }
        let mut named: HashMap<&str, (usize, usize)> = HashMap::new();
        for &block in &order {
            for (place, command) in passive.blocks[block].iter().enumerate() {
                let Passive::Assume(Term::App(_, operands), Role::Definition) = command else { continue };
                let [Term::Symbol(defined), value] = operands.as_slice() else { continue };
                let scalar = passive
                    .incarnations
                    .list
                    .get(index[defined.as_str()])
                    .is_some_and(|(_, ty)| !matches!(ty, Type::Map(..)));
                let mut symbols = HashSet::new();
                value.symbols(&mut symbols);
                let of_constants = symbols.iter().all(|symbol| {
                    index.get(symbol).is_none_or(|&position| constant[position]) || named.contains_key(symbol)
                });
                if scalar && of_constants && definitions[defined.as_str()] == 1 {
                    named.insert(defined.as_str(), (block, place));
                }
            }
        }
        let connecting = |symbol: &str| -> Option<usize> {
            let position = *index.get(symbol)?;
            (!constant[position] && !named.contains_key(symbol)).then_some(position)
        };
        let mut components = Components { parent: (0..passive.incarnations.list.len()).collect() };
        let mut symbols_of: Vec<Vec<Vec<usize>>> = Vec::new();
        let mut names_used: Vec<Vec<Vec<&str>>> = Vec::new();
        for commands in &passive.blocks {
            let mut block_symbols = Vec::new();
            let mut block_names = Vec::new();
            for command in commands {
                let mut symbols = HashSet::new();
                term(command).symbols(&mut symbols);
                let mut linking: Vec<usize> = symbols.iter().filter_map(|symbol| connecting(symbol)).collect();
                linking.sort_unstable();
                for pair in linking.windows(2) {
                    components.union(pair[0], pair[1]);
                }
                let mut names: Vec<&str> = symbols.into_iter().filter(|symbol| named.contains_key(symbol)).collect();
                names.sort_unstable();
                block_symbols.push(linking);
                block_names.push(names);
            }
            symbols_of.push(block_symbols);
            names_used.push(block_names);
        }
        let mut size = vec![0; passive.incarnations.list.len()];
        let component: Vec<Vec<Option<usize>>> = symbols_of
            .iter()
            .map(|block| {
                block
                    .iter()
                    .map(|linking| {
                        let root = components.find(*linking.first()?);
                        size[root] += 1;
                        Some(root)
                    })
                    .collect()
            })
            .collect();
        let controls = control_dependences(analysis);
        Sorting { analysis, component, named, names_used, size, controls }
    }
}

/// The variable an incarnation (`x@3`) belongs to.
fn variable_of(incarnation: &str) -> &str {
    incarnation.rsplit_once('@').map_or(incarnation, |(variable, _)| variable)
}

/// For each block, the branch blocks it is control dependent on (Ferrante, Ottenstein and
/// Warren): a block `Y` depends on the edge `X -> S` when `Y` post-dominates `S` but not `X`; the
/// guard of `S`, its first command, then decides whether `Y` runs.
fn control_dependences(analysis: &Analysis) -> Vec<Vec<usize>> {
    let blocks = &analysis.blocks;
    let exit = blocks.len();
    let order = super::topological_order(blocks);
    let mut rank = vec![usize::MAX; blocks.len() + 1];
    for (position, &block) in order.iter().enumerate() {
        rank[block] = position;
    }
    rank[exit] = blocks.len();
    // Immediate post-dominators, blocks without successors going to a virtual exit; in reverse
    // topological order every successor is done first.
    let mut post: Vec<Option<usize>> = vec![None; blocks.len() + 1];
    post[exit] = Some(exit);
    let intersect = |post: &[Option<usize>], mut first: usize, mut second: usize| {
        while first != second {
            while rank[first] < rank[second] {
                first = post[first].expect("a post-dominator");
            }
            while rank[second] < rank[first] {
                second = post[second].expect("a post-dominator");
            }
        }
        first
    };
    for &block in order.iter().rev() {
        let successors = &blocks[block].successors;
        let mut dominator = None;
        for &successor in successors {
            if post[successor].is_none() {
                continue;
            }
            dominator = Some(match dominator {
                None => successor,
                Some(current) => intersect(&post, current, successor),
            });
        }
        post[block] = Some(dominator.unwrap_or(exit));
    }
    let mut controls = vec![Vec::new(); blocks.len()];
    for &block in &order {
        let Some(stop) = post[block] else { continue };
        for &successor in &blocks[block].successors {
            let mut runner = successor;
            while runner != stop && runner != exit {
                if !controls[runner].contains(&successor) {
                    controls[runner].push(successor);
                }
                match post[runner] {
                    Some(next) => runner = next,
                    None => break,
                }
            }
        }
    }
    controls
}

/// The parts of a procedure, each a selection of its commands and checks, and whether it is a
/// probe's; none when it is asked whole.
pub(super) fn parts(analysis: &Analysis, probe: &dyn Fn(&str) -> bool) -> Vec<(Selection, bool)> {
    let total: usize = analysis.passive.blocks.iter().map(Vec::len).sum();
    if total < SPLIT_FROM {
        return Vec::new();
    }
    let sorting = Sorting::of(analysis);
    let is_probe = |check: usize| analysis.checks[check].tag.as_deref().is_some_and(probe);
    // Where each check's assertion stands, and its component.
    let mut place = vec![(0, 0); analysis.checks.len()];
    let mut component_of_check = vec![None; analysis.checks.len()];
    for (block, commands) in analysis.passive.blocks.iter().enumerate() {
        for (position, command) in commands.iter().enumerate() {
            if let Passive::Assert(check, _) = command {
                place[*check] = (block, position);
                component_of_check[*check] = sorting.component[block][position];
            }
        }
    }
    let asked: Vec<usize> =
        (0..analysis.checks.len()).filter(|&check| !analysis.checks[check].trivial && !is_probe(check)).collect();
    // A check about constants alone goes with the next check that has a component (a bound before
    // the permission check of one access), else with the one before.
    let mut group_of = HashMap::new();
    let mut groups: Vec<(BTreeSet<usize>, Vec<usize>)> = Vec::new();
    let mut loose = Vec::new();
    for &check in &asked {
        let Some(component) = component_of_check[check] else {
            loose.push(check);
            continue;
        };
        let group = *group_of.entry(component).or_insert_with(|| {
            groups.push((BTreeSet::from([component]), Vec::new()));
            groups.len() - 1
        });
        groups[group].1.append(&mut loose);
        groups[group].1.push(check);
    }
    match groups.last_mut() {
        Some((_, checks)) => checks.append(&mut loose),
        None if !loose.is_empty() => groups.push((BTreeSet::new(), loose)),
        None => {}
    }
    // Groups in the order of their first check, put together into parts of `PART_SIZE` commands.
    groups.sort_by_key(|(_, checks)| checks.iter().min().copied());
    let mut merged: Vec<(BTreeSet<usize>, Vec<usize>)> = Vec::new();
    let mut weight = 0;
    for (components, checks) in groups {
        let own: usize = components.iter().map(|&component| sorting.size[component]).sum::<usize>() + checks.len();
        match merged.last_mut() {
            Some((all, asked)) if weight < PART_SIZE => {
                all.extend(components);
                asked.extend(checks);
                weight += own;
            }
            _ => {
                merged.push((components, checks));
                weight = own;
            }
        }
    }
    if merged.len() < 2 && !(0..analysis.checks.len()).any(is_probe) {
        return Vec::new();
    }
    let mut selections: Vec<(Selection, bool)> =
        merged.into_iter().map(|(components, checks)| (select(&sorting, components, &checks, &place), false)).collect();
    // A probe asks whether any state gets past the assumption just before it: it goes with the
    // components of the commands lowered since the probe before it (program order). Consecutive
    // probes share a part up to `PART_SIZE` commands, each asked alone in it.
    let mut since = 0;
    let mut pending: (BTreeSet<usize>, Vec<usize>) = (BTreeSet::new(), Vec::new());
    for check in (0..analysis.checks.len()).filter(|&check| is_probe(check)) {
        let (block, position) = place[check];
        let until = analysis.passive.order[block][position];
        for ancestor in ancestors(analysis, &[block]) {
            for (position, component) in sorting.component[ancestor].iter().enumerate() {
                if (since..until).contains(&analysis.passive.order[ancestor][position]) {
                    pending.0.extend(*component);
                }
            }
        }
        since = until;
        pending.1.push(check);
        let weight: usize = pending.0.iter().map(|&component| sorting.size[component]).sum();
        if weight >= PART_SIZE {
            let (components, probes) = std::mem::take(&mut pending);
            selections.push((select(&sorting, components, &probes, &place), true));
        }
    }
    if !pending.1.is_empty() {
        selections.push((select(&sorting, pending.0, &pending.1, &place), true));
    }
    selections
}

/// The blocks from which one of `targets` can be reached, targets included.
fn ancestors(analysis: &Analysis, targets: &[usize]) -> Vec<usize> {
    let mut predecessors = vec![Vec::new(); analysis.blocks.len()];
    for (block, data) in analysis.blocks.iter().enumerate() {
        for &successor in &data.successors {
            predecessors[successor].push(block);
        }
    }
    let mut seen = vec![false; analysis.blocks.len()];
    let mut work: Vec<usize> = targets.to_vec();
    while let Some(block) = work.pop() {
        if !std::mem::replace(&mut seen[block], true) {
            work.extend(&predecessors[block]);
        }
    }
    (0..analysis.blocks.len()).filter(|&block| seen[block]).collect()
}

/// The selection of a part that asks `checks` with the commands of `components`: in the blocks
/// from which an asked check can be reached, the commands of those components, the facts about
/// constants alone, the definitions of the constant-like names they use, and the guards of the
/// branches any of them lies in (whose components join the part).
fn select(sorting: &Sorting, mut components: BTreeSet<usize>, checks: &[usize], place: &[(usize, usize)]) -> Selection {
    let analysis = sorting.analysis;
    let passive = &analysis.passive;
    let targets: Vec<usize> = checks.iter().map(|&check| place[check].0).collect();
    let within = ancestors(analysis, &targets);
    let asked: HashSet<usize> = checks.iter().copied().collect();
    let mut kept: Vec<HashSet<usize>> = vec![HashSet::new(); analysis.blocks.len()];
    let mut guards: HashSet<usize> = HashSet::new();
    loop {
        let before = (components.len(), guards.len());
        let mut needed: Vec<usize> = targets.clone();
        for &block in &within {
            for (position, command) in passive.blocks[block].iter().enumerate() {
                let component = sorting.component[block][position];
                let keep = match command {
                    Passive::Assert(check, _) => {
                        asked.contains(check)
                            || component.is_some_and(|component| components.contains(&component))
                                && analysis.checks[*check].assumed
                                && !analysis.checks[*check].trivial
                    }
                    Passive::Assume(_, role) => match component {
                        Some(component) => components.contains(&component),
                        None => *role == Role::Fact || (*role == Role::Branch && guards.contains(&block)),
                    },
                };
                if keep {
                    kept[block].insert(position);
                }
            }
            if !kept[block].is_empty() {
                needed.push(block);
            }
        }
        // The guards the kept commands depend on, and the components those guards are in.
        let mut work = needed;
        while let Some(block) = work.pop() {
            for &guarded in &sorting.controls[block] {
                if guards.insert(guarded) {
                    work.push(guarded);
                }
                if let Some(Passive::Assume(_, Role::Branch)) = passive.blocks[guarded].first() {
                    kept[guarded].insert(0);
                    if let Some(component) = sorting.component[guarded][0] {
                        components.insert(component);
                    }
                }
            }
        }
        if (components.len(), guards.len()) == before {
            break;
        }
    }
    // The definitions of the constant-like names the kept commands use, and those they use.
    let mut work: Vec<&str> = Vec::new();
    for &block in &within {
        for &position in &kept[block] {
            work.extend(&sorting.names_used[block][position]);
        }
    }
    let mut defined = HashSet::new();
    while let Some(name) = work.pop() {
        if !defined.insert(name) {
            continue;
        }
        let (block, position) = sorting.named[name];
        kept[block].insert(position);
        work.extend(&sorting.names_used[block][position]);
    }
    let in_part: HashSet<usize> = within.iter().copied().collect();
    let mut selected_checks: Vec<(usize, bool)> = Vec::new();
    let kept: Vec<Option<Vec<usize>>> = (0..analysis.blocks.len())
        .map(|block| {
            in_part.contains(&block).then(|| {
                let mut positions: Vec<usize> = kept[block].iter().copied().collect();
                positions.sort_unstable();
                for &position in &positions {
                    if let Passive::Assert(check, _) = &passive.blocks[block][position] {
                        selected_checks.push((*check, asked.contains(check)));
                    }
                }
                positions
            })
        })
        .collect();
    selected_checks.sort_unstable();
    Selection { kept, checks: selected_checks, collapse: true }
}
