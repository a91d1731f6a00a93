/* list.h - circular doubly linked lists with a head node (Linux style).
 *
 * An empty list is a head that points to itself; entries embed a
 * struct list_head and are recovered with list_entry()/container_of().
 */
#ifndef TINY_LIST_H
#define TINY_LIST_H

#include <tiny/compiler.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline void __list_add(struct list_head *new, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	prev->next = new;
}

/* Inserts new right after head (stack order). */
static inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

/* Inserts new right before head (queue order). */
static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	__list_add(new, head->prev, head);
}

/* Unlinks entry and leaves it pointing to itself, so list_empty() on it is true. */
static inline void list_del_init(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
	INIT_LIST_HEAD(entry);
}

static inline void list_del(struct list_head *entry)
{
	list_del_init(entry);
}

static inline void list_move(struct list_head *entry, struct list_head *head)
{
	list_del(entry);
	list_add(entry, head);
}

static inline void list_move_tail(struct list_head *entry, struct list_head *head)
{
	list_del(entry);
	list_add_tail(entry, head);
}

static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)

#define list_for_each_entry(pos, head, member)					\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);		\
	     &pos->member != (head);						\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))


/* Iteration that survives list_del() of the current entry. */
#define list_for_each_entry_safe(pos, n, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),		\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);						\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

#endif /* TINY_LIST_H */
