package dev.engram.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.engram.avro.Memory;
import dev.engram.avro.MemoryStatus;
import dev.engram.avro.MemoryType;
import dev.engram.avro.MemoryUpdated;
import dev.engram.avro.SourceRef;
import dev.engram.bench.ConsistencyHistories.Event;
import dev.engram.bench.ConsistencyHistories.History;
import dev.engram.bench.ConsistencyHistories.Question;
import dev.engram.core.UserKey;
import dev.engram.port.ExtractedMemory;
import dev.engram.stack.MemoryState;

/**
 * The figures of a consistency run from its answers and the memory-updated log: the current and outdated values in the context blocks, echoes, conflicting active values and the churn history's ids and updates.
 */
final class ConsistencyFigures {

    private ConsistencyFigures() {
    }

    /** The figures of a run (see the class comment). */
    static Map<String, Object> figures(final List<History> all, final List<ConsistencyBenchmark.Answer> answers,
                                       final List<MemoryUpdated> events) {
        final Map<String, List<Memory>> state = MemoryState.fold(events).memories();
        final Map<String, Memory> byId = new HashMap<>();
        state.values().forEach(list -> list.forEach(m -> byId.put(m.getMemoryId(), m)));
        final Set<String> echoMessages = new HashSet<>();
        for (final History h : all) {
            for (int i = 0; i < h.events().size(); i++) {
                final Event e = h.events().get(i);
                if (e.isCommand()) {
                    continue;
                }
                for (int m = 0; m < e.messages().size(); m++) {
                    if (e.messages().get(m).echo()) {
                        echoMessages.add(ConsistencyBenchmark.conversationId(h, i) + "#" + m);
                    }
                }
            }
        }
        final Map<Integer, int[]> current = new LinkedHashMap<>();
        final Map<Integer, int[]> stale = new LinkedHashMap<>();
        for (final int budget : ConsistencyBenchmark.BUDGETS) {
            current.put(budget, new int[2]);
            stale.put(budget, new int[1]);
        }
        int staleInFacts = 0;
        int echo = 0;
        final List<Map<String, Object>> perQuestion = new ArrayList<>();
        for (final ConsistencyBenchmark.Answer a : answers) {
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("history", a.history().id());
            row.put("ask", a.question().ask());
            for (final int budget : ConsistencyBenchmark.BUDGETS) {
                final String block = a.blocks().get(budget);
                if (!a.question().current().isEmpty()) {
                    current.get(budget)[1]++;
                    if (ConsistencyScoring.holdsAsCurrent(block, a.question().current())) {
                        current.get(budget)[0]++;
                    } else if (budget == 512) {
                        row.put("currentMissing", true);
                    }
                }
                final String leak = ConsistencyScoring.staleLine(block, a.question().outdated(), a.question().current());
                if (leak != null) {
                    stale.get(budget)[0]++;
                    if (budget == 512) {
                        row.put("staleLine", leak);
                        if (ConsistencyScoring.sectionOf(block, leak).startsWith("Known facts")) {
                            staleInFacts++;
                        }
                    }
                }
            }
            final List<String> echoes = a.ids().get(512).stream().filter(id -> citesEcho(byId.get(id), echoMessages)).toList();
            if (!echoes.isEmpty()) {
                echo++;
                row.put("echoItems", echoes.size());
            }
            row.put("context512", a.blocks().get(512));
            perQuestion.add(row);
        }
        final int questions = answers.size();
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("histories", all.size());
        f.put("questions", questions);
        for (final int budget : ConsistencyBenchmark.BUDGETS) {
            final int[] c = current.get(budget);
            f.put("currentInContext@" + budget, BenchReport.round(c[1] == 0 ? 0 : (double) c[0] / c[1], 3));
        }
        f.put("staleLeak", BenchReport.round((double) stale.get(512)[0] / Math.max(1, questions), 3));
        f.put("staleLeak@256", BenchReport.round((double) stale.get(256)[0] / Math.max(1, questions), 3));
        f.put("staleLeakInFacts", BenchReport.round((double) staleInFacts / Math.max(1, questions), 3));
        f.put("echoLeak", BenchReport.round((double) echo / Math.max(1, questions), 3));
        f.put("conflictingActive", conflictingActive(state));
        final Map<String, Object> churn = churn(all, events, state);
        f.put("updatesPerConversation", churn.get("updatesPerConversation"));
        f.put("idsPerFact", churn.get("idsPerFact"));
        f.put("churn", churn);
        f.put("perQuestion", perQuestion);
        return f;
    }

    /** @return whether the memory cites an assistant message the script marks as an echo */
    static boolean citesEcho(final Memory memory, final Set<String> echoMessages) {
        if (memory == null) {
            return false;
        }
        for (final SourceRef s : memory.getSources()) {
            for (final Integer i : s.getMessageIndexes()) {
                if (echoMessages.contains(s.getConversationId() + "#" + i)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return fact keys (per user) held by two or more ACTIVE memories */
    static int conflictingActive(final Map<String, List<Memory>> state) {
        int conflicts = 0;
        for (final List<Memory> memories : state.values()) {
            final Map<String, Integer> perKey = new HashMap<>();
            memories.stream().filter(m -> m.getStatus() == MemoryStatus.ACTIVE && m.getKey() != null)
                .forEach(m -> perKey.merge(m.getKey(), 1, Integer::sum));
            conflicts += (int) perKey.values().stream().filter(n -> n > 1).count();
        }
        return conflicts;
    }

    /** The churn figures: events per conversation, ids per fact (at the end, and ever). */
    static Map<String, Object> churn(final List<History> all, final List<MemoryUpdated> events,
                                             final Map<String, List<Memory>> state) {
        final Map<String, Object> c = new LinkedHashMap<>();
        final History churn = all.stream().filter(History::churn).findFirst().orElse(null);
        if (churn == null) {
            return c;
        }
        final String user = new UserKey(ConsistencyBenchmark.TENANT, churn.userId()).wire();
        final List<MemoryUpdated> mine = events.stream().filter(e -> e != null
            && new UserKey(e.getTenantId(), e.getUserId()).wire().equals(user)).toList();
        final Map<String, Long> byOperation = new java.util.TreeMap<>();
        mine.forEach(e -> byOperation.merge(e.getOperation().name(), 1L, Long::sum));
        double idsAtEnd = 0;
        double idsEver = 0;
        final List<Map<String, Object>> facts = new ArrayList<>();
        for (final Question q : churn.questions()) {
            final Set<String> factIds = new HashSet<>();
            final Set<String> ever = new HashSet<>();
            for (final MemoryUpdated e : mine) {
                if (e.getMemory() != null && isStatement(e.getMemory()) && ConsistencyScoring.holds(e.getMemory().getContent(), q.current())) {
                    ever.add(e.getMemoryId());
                    if (e.getMemory().getType() != MemoryType.EPISODIC) {
                        factIds.add(e.getMemoryId());
                    }
                }
            }
            final List<Memory> active = state.getOrDefault(user, List.of()).stream()
                .filter(m -> m.getStatus() == MemoryStatus.ACTIVE && isStatement(m)
                    && ConsistencyScoring.holds(m.getContent(), q.current())).toList();
            // the fact's ids: its fact memories ever; a fact that only lives in episodes, its episodes at the end
            final long ids = !factIds.isEmpty() ? factIds.size() : active.size();
            idsAtEnd += ids;
            idsEver += ever.size();
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("ask", q.ask());
            row.put("ids", ids);
            row.put("factIdsEver", factIds.size());
            row.put("activeIds", active.size());
            row.put("idsEver", ever.size());
            row.put("reinforcement", active.stream().mapToInt(Memory::getReinforcementCount).max().orElse(0));
            facts.add(row);
        }
        final long conversations = churn.events().stream().filter(e -> !e.isCommand()).count();
        c.put("conversations", conversations);
        c.put("memoryUpdated", mine.size());
        c.put("byOperation", byOperation);
        c.put("observationEvents", mine.stream().filter(e -> e.getMemory() != null
            && ExtractedMemory.isObservation(e.getMemory().getType(), e.getMemory().getDisplayName())).count());
        c.put("updatesPerConversation", BenchReport.round((double) mine.size() / Math.max(1, conversations), 3));
        c.put("idsPerFact", BenchReport.round(idsAtEnd / Math.max(1, churn.questions().size()), 3));
        c.put("idsEverPerFact", BenchReport.round(idsEver / Math.max(1, churn.questions().size()), 3));
        c.put("facts", facts);
        return c;
    }

    /** A memory of what the user said: not an observation, not a conversation summary. */
    static boolean isStatement(final Memory m) {
        return !ExtractedMemory.isObservation(m.getType(), m.getDisplayName())
            && !ExtractedMemory.isSummary(m.getType(), m.getDisplayName());
    }
}
