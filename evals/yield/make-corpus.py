"""Writes evals/yield/corpus.json: the broken calls of the correction-yield experiment.

Two sources: the shop's error-message corpus (evals/shop/experiments/error-messages.json, the calls whose
fix is known; each given a zh-CN wording of the user's words here), and mutations of intents below: one
valid call per intent, broken one way per error kind that applies to it. Deterministic: no randomness.
Rerun with `python3 evals/yield/make-corpus.py && npx biome format --write evals/yield/corpus.json` after editing; the
experiment reads only the JSON.
"""
import copy
import json

ZH = {
    'order-id-as-number': '我的订单在哪？邮件里写的是 SO20260901。',
    'order-id-as-array': 'SO20260902 到了吗？',
    'order-id-as-object': '请问 SO20260904 是什么状态？',
    'refund-no-as-number': '退款 RF2026090001 怎么样了？',
    'amount-as-string': 'SO20260902 的杯子到货时坏了，请退 2000 分。',
    'amount-as-yuan-string': '请给 SO20260901 退 20.00 元，鼠标到货时坏了。',
    'order-id-lowercase-dashes': '订单 SO20260901 在哪？',
    'order-id-without-prefix': '请帮我查一下 SO20260901 的物流。',
    'order-id-digit-dropped': '订单 SO20260904 发货了吗？',
    'refund-no-truncated': '退款 RF2026090001 有消息吗？',
    'reason-damage': 'SO20260901 到货时坏了，退 20 元。',
    'reason-wrong-item-with-space': 'SO20260902 发错货了，退 79 元。',
    'reason-not-received-case': 'SO20260901 一直没到，退 129 元。',
    'reason-change-mind': '我不想要 SO20260904 了，退 45.50 元。',
    'reason-not-described': 'SO20260902 的茶壶与描述不符，退 200 元。',
    'reason-missing-abbreviated': 'SO20260902 少了一件商品，退 79 元。',
    'missing-order-id-query': 'SO20260901 在哪？',
    'missing-order-id-track': 'SO20260902 送到了吗？',
    'missing-order-id-refund': '请给 SO20260901 退 20 元，到货时坏了。',
    'missing-order-id-note': '请在 SO20260904 上备注：按两次门铃。',
    'missing-refund-no-business-check': '退款 RF2026090001 是什么状态？',
    'amount-zero': 'SO20260901 到货时坏了，退 20 元。',
    'amount-negative': 'SO20260901 到货时坏了，退 20 元。',
    'amount-fraction-of-a-cent': 'SO20260901 到货时坏了，退 19.995 元。',
    'callback-in-seconds': '请在北京时间 9 月 6 日 09:00 就 SO20260901 给我回电话。',
    'extra-customer-name': 'SO20260901 在哪？',
    'camel-case-field': '请查一下 SO20260902 的物流。',
    'extra-priority-field': '请在 SO20260901 上备注：包裹放在前台。',
    'three-problems-at-once': '我 SO20260902 的杯子到货时坏了，请退 79 元（7900 分）。',
    'format-and-enum': 'SO20260901 发错货了，退 20 元。',
}

# id, user (en), user (zh-CN), tool, valid arguments, the values the right call must hold, mutations.
# A mutation: (kind, arguments-or-None, tool-or-None); None keeps the intent's.
INTENTS = []


def intent(id, user, zh, tool, args, expected, mutations):
    INTENTS.append(dict(id=id, user=user, zh=zh, tool=tool, args=args, expected=expected, mutations=mutations))


def without(args, key):
    copied = copy.deepcopy(args)
    copied.pop(key)
    return copied


def with_(args, key, value):
    copied = copy.deepcopy(args)
    copied[key] = value
    return copied


for n, (order, question, zh) in enumerate([
    ('SO20260901', 'Where is my order {o}?', '我的订单 {o} 在哪？'),
    ('SO20260902', 'Can you look up order {o} for me?', '能帮我查一下订单 {o} 吗？'),
    ('SO20260904', 'What is in my order {o} and what did it cost?', '我的订单 {o} 里有什么，花了多少钱？'),
    ('SO20260903', 'Is order {o} paid already?', '订单 {o} 已经付款了吗？'),
]):
    a = {'order_id': order}
    intent(f'query-{n}', question.format(o=order), zh.format(o=order), 'query_order', a, a, [
        ('wrong_type', {'order_id': int(order[2:])}, None),
        ('pattern', {'order_id': order[2:]}, None),
        ('pattern', {'order_id': f'so-{order[2:6]}-{order[6:]}'}, None),
        ('missing_field', {}, None),
        ('unknown_tool', a, 'get_order'),
    ])
for n, (order, question, zh) in enumerate([
    ('SO20260902', 'Where is the parcel of {o} right now?', '{o} 的包裹现在到哪了？'),
    ('SO20260901', 'Track the delivery of order {o}, please.', '请跟踪订单 {o} 的配送。'),
    ('SO20260904', 'Which carrier has my order {o}?', '我的订单 {o} 是哪家快递？'),
]):
    a = {'order_id': order}
    intent(f'track-{n}', question.format(o=order), zh.format(o=order), 'track_shipment', a, a, [
        ('wrong_type', {'order_id': [order]}, None),
        ('pattern', {'order_id': order.lower()}, None),
        ('pattern', {'order_id': order[2:]}, None),
        ('missing_field', {}, None),
        ('unknown_tool', a, 'track_order'),
    ])
for n, (refund, zh) in enumerate([('RF2026090001', '退款 {r} 到账了吗？'), ('RF2026090002', '我的退款 {r} 处理到哪一步了？')]):
    a = {'refund_no': refund}
    intent(f'refund-status-{n}', f'Has refund {refund} been paid out?' if n == 0 else f'How far along is my refund {refund}?',
           zh.format(r=refund), 'query_refund', a, a, [
        ('wrong_type', {'refund_no': int(refund[2:])}, None),
        ('pattern', {'refund_no': refund[2:]}, None),
        ('unknown_tool', a, 'refund_status'),
    ])
for n, (order, note, en, zh) in enumerate([
    ('SO20260901', 'Please leave the parcel at the building reception.',
     'Add a note to order {o}: please leave the parcel at the building reception.', '给订单 {o} 加个备注：请把包裹放在大楼前台。'),
    ('SO20260904', 'Ring the bell twice.', 'On {o} please note: ring the bell twice.', '请在 {o} 上备注：按两次门铃。'),
    ('SO20260902', 'Deliver after 6 pm.', 'Note for {o}: deliver after 6 pm.', '{o} 备注：晚上 6 点以后送。'),
]):
    a = {'order_id': order, 'note': note}
    intent(f'note-{n}', en.format(o=order), zh.format(o=order), 'add_order_note', a, {'order_id': order}, [
        ('pattern', with_(a, 'order_id', order[2:]), None),
        ('missing_field', without(a, 'order_id'), None),
        ('wrong_type', with_(a, 'note', [note]), None),
        ('unknown_tool', a, 'add_note'),
    ])
REFUNDS = [
    ('SO20260901', 2000, 'damaged', 'The mug arrived damaged.', 'damage',
     'My mug from {o} arrived damaged, refund 20 yuan please.', '我 {o} 的杯子到货时坏了，请退 20 元。'),
    ('SO20260902', 7900, 'wrong_item', 'I received the wrong item.', 'wrong-item',
     'I got the wrong item in {o}, please refund 79 yuan.', '{o} 发错货了，请退 79 元。'),
    ('SO20260904', 4550, 'changed_mind', 'I changed my mind.', 'changed mind',
     'I changed my mind about {o}, refund 45.50 yuan.', '我不想要 {o} 了，退 45.50 元。'),
    ('SO20260901', 12900, 'not_received', 'The parcel never arrived.', 'not_delivered',
     'Order {o} never arrived, refund 129 yuan.', '订单 {o} 一直没到，退 129 元。'),
    ('SO20260902', 20000, 'not_as_described', 'The teapot is not as described.', 'not described',
     'The teapot in {o} is not as described, refund 200 yuan.', '{o} 的茶壶与描述不符，退 200 元。'),
]
for n, (order, cents, category, reason, near, en, zh) in enumerate(REFUNDS):
    a = {'order_id': order, 'amount_cents': cents, 'reason_category': category, 'reason': reason}
    intent(f'refund-{n}', en.format(o=order), zh.format(o=order), 'apply_refund', a,
           {'order_id': order, 'amount_cents': cents, 'reason_category': category}, [
        ('enum', with_(a, 'reason_category', near), None),
        ('enum', with_(a, 'reason_category', category.upper()), None),
        ('wrong_type', with_(a, 'amount_cents', f'{cents / 100:.2f}'), None),
        ('pattern', with_(a, 'order_id', order.lower()), None),
        ('missing_field', without(a, 'amount_cents'), None),
        ('unknown_tool', a, 'refund_order'),
    ])
for n, (order, ms, en, zh) in enumerate([
    ('SO20260901', 1788656400000, 'Call me back about {o} on 6 September 2026 at 09:00 Beijing time (Unix ms 1788656400000).',
     '请在北京时间 2026 年 9 月 6 日 09:00 就 {o} 给我回电话（Unix 毫秒 1788656400000）。'),
    ('SO20260902', 1788742800000, 'Please have someone call me about {o} at Unix time 1788742800000 ms.',
     '请在 Unix 时间 1788742800000 毫秒时就 {o} 给我回电话。'),
]):
    a = {'order_id': order, 'callback_at_ms': ms}
    intent(f'callback-{n}', en.format(o=order), zh.format(o=order), 'schedule_callback', a, a, [
        ('wrong_type', with_(a, 'callback_at_ms', str(ms)), None),
        ('pattern', with_(a, 'order_id', order[2:]), None),
        ('missing_field', without(a, 'callback_at_ms'), None),
        ('unknown_tool', a, 'book_callback'),
    ])
for n, (order, en, zh) in enumerate([('SO20260901', 'Show me the messages about order {o}.', '给我看看订单 {o} 的消息。'),
                                     ('SO20260904', 'Did the shop write anything about {o}?', '商店有没有就 {o} 发过消息？')]):
    a = {'order_id': order}
    intent(f'messages-{n}', en.format(o=order), zh.format(o=order), 'read_order_messages', a, a, [
        ('wrong_type', {'order_id': int(order[2:])}, None),
        ('pattern', {'order_id': 'order ' + order}, None),
        ('unknown_tool', a, 'get_messages'),
    ])
for n, (to, subject, body, en, zh) in enumerate([
    ('li.wei@example.com', 'Your refund', 'Your refund is on its way.',
     'Email li.wei@example.com with the subject "Your refund" and the text "Your refund is on its way."',
     '给 li.wei@example.com 发邮件，主题 "Your refund"，正文 "Your refund is on its way."'),
    ('alice.chen@example.com', 'Meeting moved', 'The meeting moved to Friday.',
     'Send alice.chen@example.com a mail, subject "Meeting moved", body "The meeting moved to Friday."',
     '给 alice.chen@example.com 发一封邮件，主题 "Meeting moved"，正文 "The meeting moved to Friday."'),
]):
    a = {'to': to, 'subject': subject, 'body': body}
    intent(f'email-{n}', en, zh, 'send_email', a, {'to': to, 'subject': subject}, [
        ('format', with_(a, 'to', to.replace('@', ' at ')), None),
        ('format', with_(a, 'to', to.split('@')[0]), None),
        ('wrong_type', with_(a, 'to', [to]), None),
        ('missing_field', without(a, 'subject'), None),
        ('unknown_tool', a, 'send_mail'),
    ])
for n, (title, start, end, email, en, zh) in enumerate([
    ('Standup', '2026-09-07T09:00:00+08:00', '2026-09-07T09:15:00+08:00', 'bob.li@example.com',
     'Put a "Standup" in my calendar on 2026-09-07 from 09:00 to 09:15 Beijing time (+08:00) and invite bob.li@example.com.',
     '在我的日历里加一个 "Standup"，北京时间（+08:00）2026-09-07 09:00 到 09:15，邀请 bob.li@example.com。'),
    ('Dentist', '2026-09-10T14:00:00+08:00', '2026-09-10T15:00:00+08:00', 'alice.chen@example.com',
     'Create a calendar event "Dentist" on 2026-09-10 from 14:00 to 15:00 (+08:00) with alice.chen@example.com.',
     '创建日程 "Dentist"，2026-09-10 14:00 到 15:00（+08:00），参与人 alice.chen@example.com。'),
    ('Review', '2026-09-11T10:00:00+08:00', '2026-09-11T11:00:00+08:00', 'carol@example.org',
     'Schedule "Review" on 2026-09-11, 10:00 to 11:00 at +08:00, invite carol@example.org.',
     '安排 "Review"，2026-09-11 10:00 到 11:00（+08:00），邀请 carol@example.org。'),
]):
    a = {'title': title, 'start': start, 'end': end, 'attendees': [{'email': email}]}
    day = start[:10]
    intent(f'event-{n}', en, zh, 'create_calendar_event', a, {'title': title, 'start': start, 'end': end}, [
        ('format', with_(a, 'start', f'{day[8:10]}/{day[5:7]}/{day[:4]} {start[11:16]}'), None),
        ('format', with_(a, 'end', end[:10] + ' ' + end[11:16]), None),
        ('nested_path', with_(a, 'attendees', [{'email': email.split('@')[0]}]), None),
        ('nested_path', with_(a, 'attendees', [email]), None),
        ('missing_field', without(a, 'end'), None),
        ('unknown_tool', a, 'create_event'),
    ])
for n, (sku, quantity, en, zh) in enumerate([
    ('SKU-MUG-02', 2, 'Set the blue mug SKU-MUG-02 in my cart to 2 pieces.', '把购物车里的蓝色杯子 SKU-MUG-02 改成 2 个。'),
    ('SKU-TEAPOT-01', 1, 'Put one SKU-TEAPOT-01 in my cart.', '往购物车里放一个 SKU-TEAPOT-01。'),
    ('SKU-LAMP-7', 3, 'I want 3 of SKU-LAMP-7 in the cart.', '购物车里要 3 个 SKU-LAMP-7。'),
]):
    a = {'items': [{'sku': sku, 'quantity': quantity}]}
    intent(f'cart-{n}', en, zh, 'update_cart', a, a, [
        ('nested_path', {'items': [{'sku': sku, 'quantity': str(quantity)}]}, None),
        ('nested_path', {'items': [{'sku': sku.lower(), 'quantity': quantity}]}, None),
        ('nested_path', {'items': [{'sku': sku}]}, None),
        ('wrong_type', {'items': {'sku': sku, 'quantity': quantity}}, None),
        ('unknown_tool', a, 'add_to_cart'),
    ])
for n, (origin, destination, day, adults, en, zh) in enumerate([
    ('PVG', 'PEK', '2026-09-05', 1, 'Find flights from Shanghai PVG to Beijing PEK on 2026-09-05 for one adult.',
     '查 2026-09-05 从上海 PVG 到北京 PEK 的航班，一位成人。'),
    ('PEK', 'NRT', '2026-10-01', 2, 'Search flights PEK to NRT on 2026-10-01 for 2 adults.',
     '搜索 2026-10-01 PEK 到 NRT 的航班，2 位成人。'),
    ('CAN', 'SIN', '2026-11-20', 1, 'One adult, Guangzhou CAN to Singapore SIN, 2026-11-20: what flights are there?',
     '一位成人，广州 CAN 到新加坡 SIN，2026-11-20，有哪些航班？'),
]):
    a = {'origin': origin, 'destination': destination, 'depart_date': day, 'passengers': {'adults': adults}}
    intent(f'flights-{n}', en, zh, 'search_flights', a, a, [
        ('format', with_(a, 'depart_date', f'{day[8:10]}.{day[5:7]}.{day[:4]}'), None),
        ('pattern', with_(a, 'origin', origin.lower()), None),
        ('pattern', with_(a, 'destination', destination + 'X'), None),
        ('nested_path', with_(a, 'passengers', {'adults': str(adults)}), None),
        ('wrong_type', with_(a, 'passengers', adults), None),
        ('missing_field', without(a, 'passengers'), None),
        ('unknown_tool', a, 'find_flights'),
    ])

# Added later (2026-12-07), so that every model has at least 215 broken calls: more mutations of the same intents, in
# the kinds the first list has least of (other, format, enum, nested path). Written after every call above, with
# their intent's mutation numbers going on from its first list, so the ids and calls above stay as they were.
EXTRA = {}
SYNONYM = {'damaged': 'broken', 'wrong_item': 'incorrect_item', 'changed_mind': 'no_longer_needed',
           'not_received': 'lost_in_transit', 'not_as_described': 'misdescribed'}
for n, (order, cents, category, reason, near, en, zh) in enumerate(REFUNDS):
    a = {'order_id': order, 'amount_cents': cents, 'reason_category': category, 'reason': reason}
    EXTRA[f'refund-{n}'] = [
        ('enum', with_(a, 'reason_category', SYNONYM[category]), None),
        ('other', with_(a, 'amount_cents', 0), None),
        ('other', with_(a, 'currency', 'CNY'), None),
    ]
for item in INTENTS:
    a = item['args']
    if item['tool'] == 'query_order':
        EXTRA[item['id']] = [('other', with_(a, 'customer_id', 'C1001'), None)]
    elif item['tool'] == 'schedule_callback':
        EXTRA[item['id']] = [('other', with_(a, 'callback_at_ms', a['callback_at_ms'] // 1000), None)]
    elif item['tool'] == 'create_calendar_event':
        EXTRA[item['id']] = [
            ('format', with_(a, 'start', a['start'][:16]), None),
            ('format', with_(a, 'end', a['end'][11:16]), None),
        ]
    elif item['tool'] == 'search_flights':
        EXTRA[item['id']] = [
            ('format', with_(a, 'depart_date', a['depart_date'].replace('-', '/')), None),
            ('enum', with_(a, 'cabin', 'Economy'), None),
            ('nested_path', with_(a, 'passengers', {'adults': 0}), None),
        ]
    elif item['tool'] == 'update_cart':
        line = a['items'][0]
        EXTRA[item['id']] = [('nested_path', {'items': [{'sku': line['sku'][4:], 'quantity': line['quantity']}]}, None)]

calls = []
shop = json.load(open('evals/shop/experiments/error-messages.json'))
for call in shop['calls']:
    if call['expected'] == 'ask':
        continue
    calls.append(dict(id=f"shop:{call['id']}", source='corpus', user=call['user'], user_zh=ZH[call['id']],
                      tool=call['tool'], arguments=call['arguments'], intended_tool=call['tool'],
                      expected=call['expected']))
for item in INTENTS:
    for index, (kind, args, tool) in enumerate(item['mutations']):
        calls.append(dict(id=f"{item['id']}:{kind}:{index}", source='mutation', user=item['user'], user_zh=item['zh'],
                          tool=tool or item['tool'], arguments=args, intended_tool=item['tool'],
                          expected=item['expected']))
for item in INTENTS:
    for index, (kind, args, tool) in enumerate(EXTRA.get(item['id'], []), start=len(item['mutations'])):
        calls.append(dict(id=f"{item['id']}:{kind}:{index}", source='mutation', user=item['user'], user_zh=item['zh'],
                          tool=tool or item['tool'], arguments=args, intended_tool=item['tool'],
                          expected=item['expected']))
intents = [dict(id=i['id'], user=i['user'], user_zh=i['zh'], tool=i['tool'], expected=i['expected']) for i in INTENTS]
json.dump({'name': 'correction-yield', 'description': __doc__.strip().splitlines()[0], 'intents': intents,
           'calls': calls}, open('evals/yield/corpus.json', 'w'), indent=1, ensure_ascii=False)
print(len(intents), 'intents,', len(calls), 'broken calls')
