/* The double-dummy search of bots/solver.py, in C for speed (the same algorithm as
 * the Python Solver, which the tests check it against). Tables come from Python, built
 * from the engine's own (games.engine STRENGTH, EFFECTIVE_SUIT, SUIT_MASK), so nothing
 * here knows how many cards there are or how they rank. Loaded with ctypes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXC 30 /* cards in the deck, at most (two hands share one 64-bit key word) */
#define MAXS 8  /* effective suits, at most */

typedef struct {
    uint64_t k0, k1;
    int8_t lo, hi;
} Entry;

typedef struct {
    int ncards, nsuits, makers, nplayers;
    uint64_t follow[MAXC];         /* the cards that follow card c when c is led */
    uint8_t strength[MAXC][MAXC];  /* [lead][c]: c's strength in a trick that `lead` leads */
    int power[MAXC];               /* strength within its own effective suit (trump above all) */
    uint64_t suit_mask[MAXS];
    int suit_len[MAXS];
    int suit_order[MAXS][MAXC];    /* each effective suit's cards, strongest first */
    int order[4][4];               /* the seats that play a trick, from its leader */
    uint64_t mask;                 /* table size - 1 (a power of two) */
    Entry *table;
    long nodes;
} Ctx;

Ctx *dds_new(int ncards, int nsuits, int makers, int nplayers, const uint64_t *follow,
             const uint8_t *strength, const int *power, const uint64_t *suit_mask,
             const int *suit_len, const int *suit_order, const int *order, int table_bits) {
    if (ncards > MAXC || nsuits > MAXS) return NULL;
    Ctx *c = calloc(1, sizeof(Ctx));
    if (!c) return NULL;
    c->ncards = ncards;
    c->nsuits = nsuits;
    c->makers = makers;
    c->nplayers = nplayers;
    for (int i = 0; i < ncards; i++) {
        c->follow[i] = follow[i];
        c->power[i] = power[i];
        for (int j = 0; j < ncards; j++) c->strength[i][j] = strength[i * ncards + j];
    }
    for (int s = 0; s < nsuits; s++) {
        c->suit_mask[s] = suit_mask[s];
        c->suit_len[s] = suit_len[s];
        for (int k = 0; k < suit_len[s]; k++) c->suit_order[s][k] = suit_order[s * ncards + k];
    }
    for (int l = 0; l < 4; l++)
        for (int k = 0; k < 4; k++) c->order[l][k] = order[l * 4 + k];
    c->mask = ((uint64_t)1 << table_bits) - 1;
    c->table = calloc(c->mask + 1, sizeof(Entry));
    if (!c->table) {
        free(c);
        return NULL;
    }
    return c;
}

void dds_free(Ctx *c) {
    if (c) {
        free(c->table);
        free(c);
    }
}

long dds_nodes(Ctx *c) { return c->nodes; }

void dds_clear(Ctx *c) { memset(c->table, 0, (c->mask + 1) * sizeof(Entry)); }

static int popcount64(uint64_t x) { return __builtin_popcountll(x); }

/* The legal cards worth trying (one of each run of equivalent cards), weakest first. */
static int moves(const Ctx *c, uint64_t legal, uint64_t blockers, int *out) {
    int n = 0;
    for (int s = 0; s < c->nsuits; s++) {
        if (!(legal & c->suit_mask[s])) continue;
        int mine_last = 0;
        for (int k = 0; k < c->suit_len[s]; k++) {
            int card = c->suit_order[s][k];
            uint64_t b = (uint64_t)1 << card;
            if (legal & b) {
                if (!mine_last) out[n++] = card;
                mine_last = 1;
            } else if (blockers & b) {
                mine_last = 0;
            }
        }
    }
    for (int i = 1; i < n; i++) { /* insertion sort by power, weakest first */
        int card = out[i], j = i - 1;
        while (j >= 0 && c->power[out[j]] > c->power[card]) {
            out[j + 1] = out[j];
            j--;
        }
        out[j + 1] = card;
    }
    return n;
}

static int node(Ctx *c, uint64_t *h, int leader, int alpha, int beta);

static int play(Ctx *c, uint64_t *h, int pos, int leader, uint64_t in_trick, int top, int winner,
                int lead, int alpha, int beta) {
    const int *order = c->order[leader];
    int seat = order[pos];
    uint64_t hand = h[seat];
    uint64_t legal = lead >= 0 ? (hand & c->follow[lead]) : 0;
    if (!legal) legal = hand;
    uint64_t live = h[0] | h[1] | h[2] | h[3];
    int mv[MAXC], n = moves(c, legal, (live & ~hand) | in_trick, mv);
    int maximizing = (seat & 1) == c->makers;
    int last = pos == c->nplayers - 1;
    int ord[MAXC], m = 0;
    if (pos == 0) {
        for (int i = n - 1; i >= 0; i--) ord[m++] = mv[i]; /* lead the strongest first */
    } else if ((winner & 1) != (seat & 1)) {
        /* the cheapest card that takes the trick first, then the rest, low to high */
        const uint8_t *st = c->strength[lead];
        for (int i = 0; i < n; i++)
            if (st[mv[i]] > top) ord[m++] = mv[i];
        for (int i = 0; i < n; i++)
            if (st[mv[i]] <= top) ord[m++] = mv[i];
    } else {
        for (int i = 0; i < n; i++) ord[m++] = mv[i];
    }
    int best = maximizing ? -1 : 99;
    for (int i = 0; i < m; i++) {
        int card = ord[i];
        h[seat] = hand ^ ((uint64_t)1 << card);
        int t, w, ld;
        if (pos == 0) {
            ld = card;
            t = c->strength[card][card];
            w = seat;
        } else {
            ld = lead;
            t = c->strength[lead][card];
            if (t > top) {
                w = seat;
            } else {
                t = top;
                w = winner;
            }
        }
        int value;
        if (last) {
            int won = (w & 1) == c->makers;
            value = won + node(c, h, w, alpha - won, beta - won);
        } else {
            value = play(c, h, pos + 1, leader, in_trick | ((uint64_t)1 << card), t, w, ld, alpha,
                         beta);
        }
        h[seat] = hand;
        if (maximizing) {
            if (value > best) {
                best = value;
                if (best > alpha) {
                    alpha = best;
                    if (alpha >= beta) break;
                }
            }
        } else if (value < best) {
            best = value;
            if (best < beta) {
                beta = best;
                if (alpha >= beta) break;
            }
        }
    }
    return best;
}

static int node(Ctx *c, uint64_t *h, int leader, int alpha, int beta) {
    int left = popcount64(h[leader]);
    if (left == 0) return 0;
    c->nodes++;
    uint64_t k0 = h[0] | (h[1] << MAXC) | ((uint64_t)1 << 62);
    uint64_t k1 = h[2] | (h[3] << MAXC) | ((uint64_t)leader << 61);
    uint64_t slot = (k0 * 0x9E3779B97F4A7C15ULL ^ k1 * 0xC2B2AE3D27D4EB4FULL) >> 20 & c->mask;
    Entry *e = &c->table[slot];
    int lo = 0, hi = left;
    if (e->k0 == k0 && e->k1 == k1) {
        lo = e->lo;
        hi = e->hi;
        if (lo >= beta || lo == hi) return lo;
        if (hi <= alpha) return hi;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    }
    int value;
    if (left == 1) { /* one card each: no choice left */
        const int *order = c->order[leader];
        int first = 63 - __builtin_clzll(h[leader]);
        int winner = leader, top = c->strength[first][first];
        for (int k = 1; k < c->nplayers; k++) {
            int seat = order[k];
            int card = 63 - __builtin_clzll(h[seat]);
            if (c->strength[first][card] > top) {
                top = c->strength[first][card];
                winner = seat;
            }
        }
        value = (winner & 1) == c->makers;
        lo = hi = value;
    } else {
        value = play(c, h, 0, leader, 0, -1, leader, -1, alpha, beta);
        if (value <= alpha) {
            if (value < hi) hi = value;
        } else if (value >= beta) {
            if (value > lo) lo = value;
        } else {
            lo = hi = value;
        }
    }
    e->k0 = k0;
    e->k1 = k1;
    e->lo = (int8_t)lo;
    e->hi = (int8_t)hi;
    return value;
}

/* The makers' tricks from the current trick on; trick[0..ntrick) the cards played to it
 * from `leader`. Exact inside (alpha, beta), a bound on the right side outside it. */
int dds_tricks(Ctx *c, const uint64_t *hands, int leader, const int *trick, int ntrick, int alpha,
               int beta) {
    uint64_t h[4] = {hands[0], hands[1], hands[2], hands[3]};
    if (ntrick == 0) return node(c, h, leader, alpha, beta);
    int lead = trick[0];
    int top = -1, winner = leader;
    uint64_t in_trick = 0;
    for (int k = 0; k < ntrick; k++) {
        int card = trick[k];
        in_trick |= (uint64_t)1 << card;
        if (c->strength[lead][card] > top) {
            top = c->strength[lead][card];
            winner = c->order[leader][k];
        }
    }
    return play(c, h, ntrick, leader, in_trick, top, winner, lead, alpha, beta);
}
