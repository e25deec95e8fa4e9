// The page's words in Japanese and English. The language follows the browser until one is chosen.

const STRINGS = {
  en: {
    skip: "Skip to content", language: "Language", theme: "Theme", themeAuto: "System theme", themeLight: "Light",
    themeDark: "Dark", calendar: "Delivery calendar (iCalendar)",
    listTitle: "Your parcels", addTitle: "Add parcels",
    numbersLabel: "Tracking numbers", numbersHint: "One number, or a pasted list (one per line or comma-separated). Hyphens, spaces and full-width digits are fine.",
    labelLabel: "Label (optional)", webhookLabel: "Webhook URL (optional)", moreOptions: "Webhook",
    add: "Add", adding: "Adding…", readyCount: "{n} ready to add", 
    "error.notDigits": "“{input}”: not a tracking number; use the digits on the slip (or an international number like EN123456785JP)",
    "error.length": "“{input}”: {count} digits; a tracking number has 10 to 13",
    "error.readAsText": "“{input}”: not a number alone; Add reads the tracking numbers a label or a carrier names in it",
    "error.checkDigit": "“{input}”: the check digit is {found}, expected {expected}; is a digit mistyped?",
    added: "Added {n}.", alreadyThere: "{n} already on the list.", addFailed: "{number}: {detail}",
    webhookSecret: "Webhook secret for {number} (shown once; keep it to check signatures): {secret}",
    sortLabel: "Sort by", sortStatus: "Status", sortDate: "Latest event",
    viewLabel: "View", viewCards: "Cards", viewTable: "Table", selectColumn: "Selected",
    "column.number": "Number", "column.carrier": "Carrier", "column.status": "Status", "column.event": "Latest event",
    "column.expected": "Expected", "column.record": "Reference · recipient", "column.label": "Label",
    filterLabel: "Show", filterAll: "All", filterActive: "Active", filterFinished: "Finished",
    count: "{shown} of {total} parcels",
    empty: "No parcels yet. Add a tracking number above.", noneMatch: "No parcels match this filter.",
    demoNumbers: "This server answers from its simulator: try {numbers}.", demoAdd: "Put these in the form",
    "family.pending": "Waiting for the first check", "family.accepted": "Accepted", "family.shipped": "Shipped",
    "family.transit": "In transit", "family.out": "Out for delivery", "family.delivered": "Delivered",
    "family.problem": "Needs attention", "family.waiting": "Not registered yet",
    "family.returning": "Returning to the sender", "family.returned": "Returned to the sender",
    keptUntil: "Kept until about {month}/{day}", sentenceEnd: ". ", keptUntilCool: "Kept until about {month}/{day} (cool parcel)",
    askRedelivery: "Ask for a redelivery on the carrier's page.", askRedeliveryOrCall: "Ask for a redelivery on the carrier's page or call {office}:",
    progress: "Progress: step {step} of 5, {name}", progressNone: "Progress: not known yet",
    scheduled: "Delivery window", requested: "Requested by you", requestedBefore: "Requested before the missed delivery", until: "by {time}", checked: "Checked {when}", lastChecked: "Last checked", neverChecked: "Not checked yet", noEvents: "No events yet",
    back: "All parcels", summary: "Summary", note: "Note", product: "Product", number: "Number",
    timeline: "History", time: "Time", status: "Status", place: "Place",
    changes: "Changes seen", noChanges: "No change seen yet.", changeFrom: "{from} → {to}", firstSeen: "first seen as {to}",
    webhookTitle: "Webhook", webhookURL: "Webhook URL (empty: none)", webhookSave: "Save webhook", webhookClear: "Remove webhook",
    webhookSaved: "Saved.", webhookCleared: "The webhook is removed.", webhookNewSecret: "Signing secret (shown once): {secret}",
    carrierJapanese: "(the carrier's words, in Japanese)",
    deliveries: "Deliveries", noDeliveries: "Nothing delivered yet.",
    refresh: "Check now", refreshing: "Checking…", remove: "Remove", confirmRemove: "Remove {number} from the list?",
    cancel: "Cancel", removed: "Removed {number}.", openOnSite: "Open on {name}’s site", carrier: "Carrier",
    "carrier.unknown": "Carrier not known yet",
    keyTitle: "API key needed", keyExplain: "This server asks for an API key. Paste one made with “kuroneko keys create”; it is kept in this browser only.",
    keyLabel: "API key", keyUse: "Use this key", keyRejected: "That key was not accepted: {detail}", keyForget: "Forget the API key",
    offline: "The server cannot be reached. Showing what was known at {when}; it may be out of date.",
    offlineNothing: "The server cannot be reached, and this browser has no earlier copy to show.",
    notWatched: "{number} is not on your list.",
    badAddress: "“{input}” is not a tracking number, so there is no page for it.",
    calendarKeyed: "With API keys, the calendar needs its token: use the feed URL that “kuroneko keys create” printed.",
    searchHint: "Search labels and numbers", search: "Search", download: "Download CSV", countsLabel: "Counts",
    countAll: "All {n}", countToday: "Today {n}", confirmRemoveMany: "Remove {n} parcels from the list?",
    removedMany: "Removed {n} parcels.", removeSelected: "Remove selected ({n})", select: "Select {name}",
    selectAll: "Select every parcel shown", removeFinished: "Remove finished",
    confirmRemoveFinished: "Remove every finished parcel (delivered, returned or a wrong number) from the list?",
    "refusal.400": "The server refused it: {detail}", "refusal.404": "Not found on this server.",
    "refusal.409": "It cannot be added: {detail}", "refusal.413": "That is too large for the server.",
    "refusal.429": "The server is busy; try again in a moment.", "refusal.5xx": "The server could not do it now; try again in a moment ({detail}).",
    "reason.invalid_number": "That is not a tracking number: {detail}", "reason.invalid_label": "That label cannot be used: {detail}",
    "reason.invalid_webhook": "That webhook address cannot be used: {detail}", "reason.not_watched": "That parcel is not on this list.",
    "reason.private_address": "That address is on this network (loopback or private), which this server does not send to. Its operator can allow it with KURONEKO_ALLOW_PRIVATE_WEBHOOKS=1 in /etc/default/kuroneko.",
    "reason.channel_unavailable": "This server cannot send that kind of notification: {detail}",
    "reason.notices_unavailable": "This server cannot send customer notices yet: {detail}", "reason.invalid_notice_settings": "Those settings cannot be used: {detail}",
    "reason.invalid_request": "The server refused it: {detail}",
    "reason.watch_limit": "The list is full (it holds as many parcels as this server allows); remove some first.",
    "reason.other_carrier": "It is on the list already, at another carrier: {detail}",
    "reason.removed_while_adding": "It was removed at the same moment; add it again.",
    "reason.channel_limit": "There are as many notification channels as allowed; remove one first.",
    mailLabel: "Or add from a shipping e-mail (.eml)",
    sheetLabel: "Or import a sheet (CSV from Excel or a label tool)",
    sheetHint: "Its columns are read by their headers (伝票番号 or tracking number; the order number, recipient and the like are kept with each parcel). UTF-8 or Shift_JIS, up to 16 MiB.",
    sheetReading: "Reading {name}…", sheetTooLarge: "{name} is larger than 16 MiB; split it.",
    sheetReport: "{name}: {rows} rows with a number; {watched} added, {existing} already on the list, {skipped} skipped.",
    sheetRepeated: "{count} numbers stood on more than one row: one recipient's rows are one parcel with their order numbers together; rows of different recipients refused that number (see below).",
    sheetMore: "…and {n} more",
    sheetLayout: "Read as {name} ({columns} columns).",
    sheetLayoutBelow: "Read as {name} ({columns} columns, the header on row {row}).",
    sheetWarning_no_email_column: "No column holds the recipients' e-mail, so no customer can be told of their parcel: choose the e-mail column below and import again.",
    sheetChoose: "Choose other columns", sheetAgain: "Import again with these columns", sheetColumnNone: "(none)",
    sheetRole_number: "number", sheetRole_reference: "order number", sheetRole_name: "recipient",
    sheetRole_telephone: "telephone", sheetRole_email: "e-mail", sheetRole_postcode: "postcode",
    sheetRole_prefecture: "prefecture", sheetRole_shipped_on: "shipped on", sheetRole_carrier: "carrier",
    sheetRole_label: "label", sheetRole_note: "note", sheetRole_address: "address",
    mailSource: "From the mail",
    recordTitle: "Order and recipient", reference: "Order / reference", recipient: "Recipient", telephone: "Telephone",
    email: "E-mail", address: "Address", shippedOn: "Shipped on", recordNote: "Note", handled: "Handled",
    handledBy: "Marked handled {when} by {by}", recordSave: "Save note", recordSaved: "Saved.",
    mailHint: "Choose or drop a saved shipping mail: the tracking numbers in it are added, named after the shop and the order.",
    mailReading: "Reading {name}…",
    mailAdded: "Added {n} from the mail: {numbers}",
    mailNothing: "No tracking number was found in that mail.",
    mailMore: "That mail holds more than {n} tracking numbers: only the first {n} were taken.",
    mailOwnDelivery: "{who} delivers this parcel itself: there is no tracking number to follow.",
    mailTooLarge: "{name} is larger than 4 MB; save the mail without its attachments.",
    "reason.busy": "The server is busy; try again in a moment.",
    "reason.page_not_understood": "The carrier's page could not be read (its layout may have changed); the last answer read is kept and it is checked again later.",
    "reason.store_unavailable": "The server cannot reach its list now; try again in a moment.",
    "reason.body_too_large": "That is too much for the server at once; send less at a time.",
    notifications: "Notifications", changeDelivery: "Ask for redelivery, or another day, time or place", changeDeliveryShort: "Redelivery or another day",
    "push.enableAll": "Notify me on this device", "push.enableParcel": "Notify me on this device about this parcel",
    "push.onAll": "This device is notified when any of your parcels moves, is near, is delivered or needs you.",
    "push.onParcel": "This device is notified about this parcel.", "push.onForAll": "This device is notified about every parcel, this one included.",
    "push.turnOff": "Turn off on this device", "push.turnedOff": "Notifications are off on this device.",
    "push.enabled": "Done: this device will be notified.",
    "push.working": "Turning notifications on… (the browser asks its push service; this takes a few seconds)",
    "push.timeout": "The browser’s push service did not answer within {seconds} seconds, so nothing was turned on. Check this device’s connection (a network that blocks the push service, such as some company or school Wi-Fi, stops it), then try again.",
    "push.denied": "Notifications are blocked for this site. Allow them in the browser’s site settings, then try again.",
    "push.dismissed": "Notifications were not allowed, so nothing was turned on.",
    "push.subscribeFailed": "The browser could not subscribe to notifications: {detail}",
    "push.homeScreen": "On iPhone and iPad, notifications work once this page is added to the Home Screen (Share → Add to Home Screen) and opened from there.",
    "push.insecure": "Notifications need this page to be opened over https (see “Notifications on your phone” in the README: LINE or ntfy need no https).",
    "push.unsupported": "This browser cannot show notifications from web pages.",
    "settings.title": "Notifications", "settings.device": "This device", "settings.channels": "Where you are told",
    "settings.none": "No notification channels yet.", "settings.add": "Add a channel", "settings.kind": "Kind", "settings.kinds": "Tell me when",
    "settings.quietLabel": "Quiet hours (optional)", "settings.quiet": "quiet {hours}",
    "settings.allParcels": "all parcels", "settings.numbers": "{n} parcels", "settings.added": "Added.",
    "settings.secret": "Signing secret (shown once): {secret}", "settings.ended": "Ended {when}: {why}",
    "settings.failing": "Failing since {when}: {why}",
    "settings.lineQuota": "This month {used} of {limit} messages ({left} left)", "settings.lineUnlimited": "This month {used} messages (no limit)",
    "settings.lineDigest": "few messages left: one digest a day at 20:00", "settings.lineHeld": "monthly limit reached: waiting until {when}",
    "kind.changed": "status changes", "kind.delivered": "delivered", "kind.exception": "needs me",
    "kind.arriving_soon": "arriving soon", "kind.stalled": "no news for days", "kind.overdue": "late", "kind.kept_reminder": "last day before it goes back",
    "kind.morning_summary": "a morning summary of the day's parcels",
    "estimate.line": "Likely around {day} ({range}; an estimate from your {parcels} past parcels, not the carrier's word)",
    "estimate.exact": "Likely around {day} (an estimate from your {parcels} past parcels, not the carrier's word)",
    "days.title": "Days to deliver", "days.carrier": "Carrier", "days.prefecture": "To", "days.parcels": "Parcels",
    "days.median": "Median days", "days.p90": "90% within", "days.onTime": "By the planned day", "days.unknown": "not known",
    "days.csv": "The table as CSV", "settings.summaryAt": "Morning summary at (Japan time)",
    "settings.summaryEvery": "summary at {at}",
    "kind.page_changed": "operator news (pages, mailbox)",
    countStalled: "Stalled {n}", stalledSince: "No news since {when}",
    listTools: "Sort, filter, download", countOverdue: "Late {n}", overdueSince: "Late: past its planned delivery since {when}",
    pageNotUnderstood: "The carrier's page could not be read",
    pageNotUnderstoodLong: "The carrier's page could not be read ({when}): its layout may have changed. This is the last answer that was read; it is checked again as usual.", shipDate: "Shipped", askAt: "Ask at",
    "notices.title": "Notices to the recipient", "notices.none": "No notice yet.", "notices.preview": "Preview",
    "notices.milestone": "Milestone", "notices.asSent": "As sent to {to} ({charset})",
    "notices.asWouldBe": "As it would be sent now to {to} ({charset})",
    "notices.state.pending": "waiting", "notices.state.sent": "sent", "notices.state.refused": "refused by the mail server",
    "notices.state.stopped": "not sent: stopped", "notices.state.failed": "given up", "notices.state.skipped": "not told",
    "milestone.shipped": "Shipped", "milestone.out_for_delivery": "Out for delivery", "milestone.delivered": "Delivered",
    "milestone.missed_delivery": "Missed delivery", "milestone.problem": "Problem or return",
    "notices.shopTitle": "Telling your customers", "notices.enabled": "Send notices to recipients",
    "notices.shopName": "Shop name", "notices.shopAddress": "Shop address", "notices.shopContact": "Contact (telephone, e-mail or page)",
    "notices.milestones": "Tell them when the parcel is", "notices.charset": "Character set", "notices.subject": "Subject",
    "notices.body": "Body (the shop, its address and contact and the stop link are added after it)",
    "notices.fields": "Fields: {fields}", "notices.save": "Save", "notices.saved": "Saved.",
    "notices.cannotSend": "This server sends no mail yet: it needs --smtp-url, --smtp-from and --public-url.",
    "notices.noDays": "No notices in the last 7 days.", "notices.day": "Day",
    "settings.othersChannel": "another member's", "signin.title": "Sign in", "signin.name": "Name", "signin.password": "Password", "signin.submit": "Sign in",
    "signin.useKey": "Use an API key instead", "signin.wrong": "The name or the password is not right.",
    "signin.wait": "Too many attempts: wait a little and try again.",
    "join.title": "Join the list", "join.explain": "You were invited. Choose a name and a password (at least 8 characters), or give your account's.",
    "join.display": "Name shown to the others (optional)", "join.password": "Password", "join.submit": "Join",
    "people.title": "People", "people.me": "Signed in as {name}, {role} of {list}.", "people.signOut": "Sign out",
    "people.signOutEverywhere": "Sign out on every device", "people.switch": "Your lists",
    "people.remove": "Take out", "people.removeConfirm": "Take {name} out of the list? Their sessions and keys end at once.",
    "people.invite": "Make an invitation link", "people.inviteAs": "Invite someone as",
    "people.link": "Invitation link", "people.copy": "Copy",
    "people.linkMade": "Send this link to the person you invite. It works once, until {until}.",
    "people.audit": "Who did what", "people.auditNone": "Nothing recorded yet.", "people.auditCsv": "The whole log as CSV",
    "people.when": "When", "people.who": "Who", "people.what": "What", "people.detail": "Details",
    "role.admin": "admin", "role.staff": "staff", "role.viewer": "viewer", "people.members": "Members",
    "role.admin.may": "Invites and takes out members, changes the list's settings and channels, reads the log: everything.",
    "role.staff.may": "Adds and removes parcels and sets up their own notifications; not the list's settings or its members.",
    "role.viewer.may": "Sees the parcels and where they are; changes nothing.",
    "people.signedIn": "You and the list", "people.pageLink": "Members and invitations →",
    "summary.preview": "See this morning's summary", "summary.nothing": "Nothing to say this morning: no summary is sent.",
    "people.nobody": "Sign in to see this list's members (a server without accounts has none).",
    "passkey.title": "Your passkeys", "passkey.add": "Make a passkey on this device", "passkey.added": "The passkey is ready: sign in with it next time.",
    "passkey.used": "last used {at}", "passkey.unused": "not used yet", "passkey.signIn": "Sign in with a passkey",
    "passkey.unavailable": "This browser has no passkeys; sign in with your name and password.",
    "passkey.cancelled": "The passkey was not used (cancelled or timed out).", "passkey.exists": "This device has a passkey for you already.",
    "passkey.failed": "The passkey could not be used on this device.", "audit.passkey_added": "passkey made", "audit.passkey_removed": "passkey removed",
    "audit.added": "added", "audit.removed": "removed", "audit.edited": "edited", "audit.imported": "imported",
    "audit.exported": "exported", "audit.settings": "settings", "audit.channel_added": "channel added",
    "audit.channel_removed": "channel removed", "audit.invited": "invited", "audit.joined": "joined",
    "audit.member_removed": "member taken out", "audit.key_made": "key made", "audit.key_revoked": "key revoked",
  },
  ja: {
    skip: "本文へ移動", language: "言語", theme: "テーマ", themeAuto: "システムに合わせる", themeLight: "ライト",
    themeDark: "ダーク", calendar: "お届け予定カレンダー（iCalendar）",
    listTitle: "お荷物一覧", addTitle: "荷物を追加",
    numbersLabel: "送り状番号", numbersHint: "1 件でも、貼り付けた一覧（1 行に 1 件、またはカンマ区切り）でも追加できます。ハイフン・空白・全角数字も使えます。",
    labelLabel: "メモ（任意）", webhookLabel: "Webhook URL（任意）", moreOptions: "Webhook",
    add: "追加", adding: "追加中…", readyCount: "{n} 件追加できます",
    "error.notDigits": "「{input}」: 追跡番号ではありません。伝票の数字（国際郵便は EN123456785JP の形）を入力してください",
    "error.length": "「{input}」: {count} 桁です。追跡番号は 10〜13 桁です",
    "error.readAsText": "「{input}」: 番号だけではありません。追加すると、伝票番号の見出しや運送会社名のある番号を読み取ります",
    "error.checkDigit": "「{input}」: チェックデジットが {found} です（正しくは {expected}）。打ち間違いはありませんか？",
    added: "{n} 件追加しました。", alreadyThere: "{n} 件は登録済みです。", addFailed: "{number}: {detail}",
    webhookSecret: "{number} の Webhook シークレット（一度だけ表示。署名の確認に使います）: {secret}",
    sortLabel: "並べ替え", sortStatus: "状態", sortDate: "最新の更新",
    viewLabel: "表示", viewCards: "カード", viewTable: "表", selectColumn: "選択",
    "column.number": "送り状番号", "column.carrier": "運送会社", "column.status": "状態", "column.event": "最新の更新",
    "column.expected": "お届け予定", "column.record": "管理番号・お届け先", "column.label": "メモ",
    filterLabel: "表示", filterAll: "すべて", filterActive: "追跡中", filterFinished: "完了",
    count: "{total} 件中 {shown} 件",
    empty: "まだ荷物がありません。上で送り状番号を追加してください。", noneMatch: "条件に合う荷物はありません。",
    demoNumbers: "このサーバーはシミュレーターから答えます。試しに {numbers} をどうぞ。", demoAdd: "フォームに入れる",
    "family.pending": "確認待ち", "family.accepted": "受付", "family.shipped": "発送",
    "family.transit": "輸送中", "family.out": "配達中", "family.delivered": "配達完了", "family.problem": "要確認", "family.waiting": "登録待ち",
    "family.returning": "返送中", "family.returned": "返送済み",
    keptUntil: "{month}月{day}日頃まで保管", sentenceEnd: "。", keptUntilCool: "{month}月{day}日頃まで保管（クール便）",
    askRedelivery: "再配達は運送会社のページからご依頼ください。", askRedeliveryOrCall: "再配達は運送会社のページか、{office}へ:",
    progress: "進捗: 5 段階中 {step}（{name}）", progressNone: "進捗: まだ不明",
    scheduled: "お届け予定", requested: "ご希望の日時", requestedBefore: "ご希望だった日時（不在の前）", until: "{time}まで", checked: "{when}に確認", lastChecked: "最終確認", neverChecked: "未確認", noEvents: "まだ記録がありません",
    back: "お荷物一覧へ", summary: "概要", note: "備考", product: "商品", number: "送り状番号",
    timeline: "履歴", time: "日時", status: "状態", place: "担当店",
    changes: "変化の記録", noChanges: "まだ変化はありません。", changeFrom: "{from} → {to}", firstSeen: "最初の状態: {to}",
    webhookTitle: "Webhook", webhookURL: "Webhook の URL（空欄: なし）", webhookSave: "Webhook を保存", webhookClear: "Webhook を外す",
    webhookSaved: "保存しました。", webhookCleared: "Webhook を外しました。", webhookNewSecret: "署名用シークレット（一度だけ表示）: {secret}",
    carrierJapanese: "（運送会社の表記のまま）",
    deliveries: "配信履歴", noDeliveries: "まだ配信はありません。",
    refresh: "今すぐ確認", refreshing: "確認中…", remove: "削除", confirmRemove: "{number} を一覧から削除しますか？",
    cancel: "キャンセル", removed: "{number} を削除しました。", openOnSite: "{name}のページで見る", carrier: "運送会社",
    "carrier.unknown": "運送会社を確認中",
    keyTitle: "API キーが必要です", keyExplain: "このサーバーは API キーを求めています。「kuroneko keys create」で作ったキーを貼り付けてください。キーはこのブラウザーにだけ保存されます。",
    keyLabel: "API キー", keyUse: "このキーを使う", keyRejected: "キーが受け付けられませんでした: {detail}", keyForget: "API キーを消去",
    offline: "サーバーに接続できません。{when} 時点の情報を表示しています（古い可能性があります）。",
    offlineNothing: "サーバーに接続できず、このブラウザーに保存された一覧もありません。",
    notWatched: "{number} は一覧にありません。",
    badAddress: "「{input}」は送り状番号ではないため、ページがありません。",
    calendarKeyed: "API キーを使う場合、カレンダーにはトークンが必要です。「kuroneko keys create」が表示したフィード URL を使ってください。",
    searchHint: "メモ・送り状番号で検索", search: "検索", download: "CSV をダウンロード", countsLabel: "件数",
    countAll: "すべて {n}", countToday: "今日 {n}", confirmRemoveMany: "{n} 件を一覧から削除しますか？",
    removedMany: "{n} 件を削除しました。", removeSelected: "選択した {n} 件を削除", select: "{name} を選択",
    selectAll: "表示中の荷物をすべて選択", removeFinished: "完了した荷物を削除",
    confirmRemoveFinished: "完了した荷物（配達完了・返品・番号誤り）をすべて一覧から削除しますか？",
    "refusal.400": "サーバーが受け付けませんでした（サーバーの説明: {detail}）。", "refusal.404": "このサーバーには見つかりません。",
    "refusal.409": "追加できません（登録数の上限、または別の運送会社で登録済みです）。", "refusal.413": "サーバーには大きすぎます。",
    "refusal.429": "サーバーが混み合っています。少し待ってからもう一度お試しください。", "refusal.5xx": "サーバーが今は処理できません。少し待ってからもう一度お試しください。",
    "reason.invalid_number": "送り状番号として読めません（番号を確かめてください）。",
    "reason.private_address": "このアドレスは同じネットワーク内（ループバックまたはプライベート）のため、このサーバーからは送れません。サーバーの管理者が /etc/default/kuroneko に KURONEKO_ALLOW_PRIVATE_WEBHOOKS=1 と書けば送れるようになります。",
    "reason.channel_unavailable": "このサーバーはこの種類の通知を送れません（メールには SMTP サーバー、ブラウザー通知には VAPID 鍵の設定が要ります）。",
    "reason.notices_unavailable": "このサーバーはまだお客様へのお知らせを送れません: {detail}", "reason.invalid_notice_settings": "この設定は使えません: {detail}",
    "reason.invalid_request": "サーバーが受け付けませんでした（サーバーの説明: {detail}）。",
    "reason.invalid_label": "このメモは使えません（200文字まで、改行や制御文字なし）。",
    "reason.invalid_webhook": "通知先のURLが使えません（http:// か https:// で始まり、名前が引けるアドレスを入れてください）。",
    "reason.not_watched": "この荷物は一覧にありません。", "reason.watch_limit": "一覧がこのサーバーの上限件数に達しています。不要な荷物を削除してください。",
    "reason.other_carrier": "この番号は別の運送会社で登録済みです。", "reason.removed_while_adding": "追加と同時に削除されました。もう一度追加してください。",
    "reason.channel_limit": "通知先が上限に達しています。どれかを削除してください。",
    mailLabel: "発送メール（.eml）から追加",
    sheetLabel: "表（CSV）から取り込む",
    sheetHint: "列は見出しで読み取ります（伝票番号・お問い合わせ番号。注文番号・お届け先名なども荷物ごとに残します）。UTF-8 または Shift_JIS、16 MiB まで。",
    sheetReading: "{name} を読み込んでいます…", sheetTooLarge: "{name} は 16 MiB を超えています。分けてください。",
    sheetReport: "{name}：番号のある行 {rows} 件 — 追加 {watched} 件、登録済み {existing} 件、読み飛ばし {skipped} 件",
    sheetRepeated: "同じ番号が複数の行にありました（{count} 件）。同じお届け先の行は注文番号をまとめて 1 件に、別のお届け先の行がある番号は登録していません（下の一覧）。",
    sheetMore: "ほか {n} 件",
    sheetLayout: "{name}（{columns} 列）として読み取りました。",
    sheetLayoutBelow: "{name}（{columns} 列、見出しは {row} 行目）として読み取りました。",
    sheetWarning_no_email_column: "お届け先のメールアドレスの列がないため、お客様へのお知らせは送れません。下でメールアドレスの列を選び、取り込み直してください。",
    sheetChoose: "列を選び直す", sheetAgain: "この列で取り込み直す", sheetColumnNone: "（なし）",
    sheetRole_number: "伝票番号", sheetRole_reference: "注文番号", sheetRole_name: "お届け先名",
    sheetRole_telephone: "電話番号", sheetRole_email: "メールアドレス", sheetRole_postcode: "郵便番号",
    sheetRole_prefecture: "都道府県", sheetRole_shipped_on: "出荷日", sheetRole_carrier: "運送会社",
    sheetRole_label: "品名", sheetRole_note: "備考", sheetRole_address: "住所",
    sheetProblem_not_a_number: "{row} 行目：「{cell}」は伝票番号として読めないため、読み飛ばしました。",
    sheetProblem_repeated_number: "{row} 行目：{number} は別のお届け先の行（{rows} 行目）にもあるため、登録していません。荷物ごとに別の番号の行にしてください。",
    sheetProblem_part_left_out: "{row} 行目：{part}を読めないため、それ以外を登録しました。",
    sheetProblem_row_too_long: "{row} 行目：64 KiB を超える行です（閉じていない \" がありませんか）。読み飛ばしました。",
    sheetProblem_not_added: "{row} 行目：登録できませんでした（{detail}）。",
    mailSource: "メール",
    recordTitle: "注文とお届け先", reference: "注文番号・管理番号", recipient: "お届け先", telephone: "電話番号",
    email: "メールアドレス", address: "住所", shippedOn: "出荷日", recordNote: "メモ", handled: "対応済み",
    handledBy: "{when} に {by} が対応済みにしました", recordSave: "メモを保存", recordSaved: "保存しました。",
    mailHint: "保存した発送のお知らせメールを選ぶかここに置くと、中の追跡番号をショップ名と注文番号の名前で追加します。",
    mailReading: "{name} を読んでいます…",
    mailAdded: "メールから {n} 件追加しました: {numbers}",
    mailNothing: "このメールには追跡番号が見つかりませんでした。",
    mailMore: "このメールには{n}件を超える追跡番号があります。最初の{n}件だけを追加しました。",
    mailOwnDelivery: "このお荷物は{who}がお届けします（追えるお問い合わせ番号はありません）。",
    mailTooLarge: "{name} は 4 MB を超えています。添付ファイルを除いて保存してください。",
    "reason.busy": "サーバーが混み合っています。少し待ってからもう一度お試しください。",
    "reason.page_not_understood": "運送会社のページを読めませんでした（ページの形が変わった可能性があります）。最後に読めた内容を表示し、あとで確認し直します。",
    "reason.store_unavailable": "サーバーが一覧を読み書きできません。少し待ってからもう一度お試しください。",
    "reason.body_too_large": "一度に送る量が多すぎます。分けて送ってください。",
    notifications: "通知", changeDelivery: "再配達・お届け日時の変更", changeDeliveryShort: "再配達・日時変更",
    "push.enableAll": "この端末に通知する", "push.enableParcel": "この荷物をこの端末に通知する",
    "push.onAll": "荷物が動いたとき・まもなく届くとき・配達完了・要確認のとき、この端末に通知します。",
    "push.onParcel": "この荷物の変化をこの端末に通知します。", "push.onForAll": "この端末にはすべての荷物（この荷物も含む）を通知しています。",
    "push.turnOff": "この端末の通知をオフにする", "push.turnedOff": "この端末の通知をオフにしました。",
    "push.enabled": "設定しました。この端末に通知します。",
    "push.working": "通知を設定しています…（ブラウザーがプッシュサービスに問い合わせています。数秒かかります）",
    "push.timeout": "{seconds}秒待ってもブラウザーのプッシュサービスから応答がなかったため、設定していません。この端末の接続を確かめて（会社や学校のWi-Fiなど、プッシュサービスを通さないネットワークでは設定できません）、もう一度お試しください。",
    "push.denied": "このサイトの通知はブロックされています。ブラウザーのサイト設定で許可してから、もう一度お試しください。",
    "push.dismissed": "通知が許可されなかったため、設定していません。",
    "push.subscribeFailed": "ブラウザーが通知を登録できませんでした: {detail}",
    "push.homeScreen": "iPhone・iPad では、このページをホーム画面に追加（共有 → ホーム画面に追加）し、そこから開くと通知を受け取れます。",
    "push.insecure": "通知を受け取るには、このページを https で開いてください（README の「Notifications on your phone」を参照。LINE や ntfy なら https は不要です）。",
    "push.unsupported": "このブラウザーはウェブページからの通知に対応していません。",
    "settings.title": "通知", "settings.device": "この端末", "settings.channels": "通知先",
    "settings.none": "通知先はまだありません。", "settings.add": "通知先を追加", "settings.kind": "種類", "settings.kinds": "通知するとき",
    "settings.quietLabel": "通知しない時間帯（任意）", "settings.quiet": "{hours} は通知しない",
    "settings.allParcels": "すべての荷物", "settings.numbers": "{n} 件の荷物", "settings.added": "追加しました。",
    "settings.secret": "署名用シークレット（一度だけ表示）: {secret}", "settings.ended": "{when} に終了: {why}",
    "settings.failing": "{when} から失敗しています: {why}",
    "settings.lineQuota": "今月 {used} / {limit} 通（残り {left} 通）", "settings.lineUnlimited": "今月 {used} 通（上限なし）",
    "settings.lineDigest": "残りが少ないため1日1回20時にまとめて送信", "settings.lineHeld": "今月の上限に達したため {when} まで待機",
    "kind.changed": "状態が変わったとき", "kind.delivered": "配達完了", "kind.exception": "要確認",
    "kind.arriving_soon": "まもなくお届け", "kind.stalled": "動きが止まったとき", "kind.overdue": "予定を過ぎたとき", "kind.kept_reminder": "保管期限の前日",
    "kind.morning_summary": "朝のまとめ（今日の荷物）",
    "estimate.line": "だいたい {day} ごろ（{range}・過去の荷物{parcels}件からの目安で、運送会社の予定ではありません）",
    "estimate.exact": "だいたい {day} ごろ（過去の荷物{parcels}件からの目安で、運送会社の予定ではありません）",
    "days.title": "お届けまでの日数", "days.carrier": "運送会社", "days.prefecture": "届け先", "days.parcels": "件数",
    "days.median": "日数（中央値）", "days.p90": "9割が届くまで", "days.onTime": "予定日までに", "days.unknown": "不明",
    "days.csv": "表をCSVで", "settings.summaryAt": "朝のまとめの時刻", "settings.summaryEvery": "まとめ {at}",
    "kind.page_changed": "管理者への知らせ",
    countStalled: "止まっている {n}", stalledSince: "{when}から動きがありません",
    listTools: "並べ替え・絞り込み・ダウンロード", countOverdue: "遅れ {n}", overdueSince: "予定を過ぎています（{when}から）",
    pageNotUnderstood: "運送会社のページを読めませんでした",
    pageNotUnderstoodLong: "運送会社のページを読めませんでした（{when}）。ページの形が変わった可能性があります。表示は最後に読めた内容です。引き続き確認します。", shipDate: "出荷日", askAt: "お問い合わせ先",
    "notices.title": "お客様へのお知らせ", "notices.none": "まだお知らせはありません。", "notices.preview": "プレビュー",
    "notices.milestone": "お知らせ", "notices.asSent": "{to} へ送ったとおり（{charset}）",
    "notices.asWouldBe": "いま送るとこうなります（{to}・{charset}）",
    "notices.state.pending": "送信待ち", "notices.state.sent": "送信済み", "notices.state.refused": "受信側が拒否",
    "notices.state.stopped": "停止済みのため送らず", "notices.state.failed": "送信をあきらめました", "notices.state.skipped": "送らず",
    "milestone.shipped": "発送", "milestone.out_for_delivery": "配達中", "milestone.delivered": "お届け完了",
    "milestone.missed_delivery": "ご不在", "milestone.problem": "問題・返送",
    "notices.shopTitle": "お客様へのお知らせ", "notices.enabled": "お届け先にお知らせを送る",
    "notices.shopName": "ショップ名", "notices.shopAddress": "所在地", "notices.shopContact": "お問い合わせ先（電話・メール・ページ）",
    "notices.milestones": "お知らせするとき", "notices.charset": "文字コード", "notices.subject": "件名",
    "notices.body": "本文（ショップ名・所在地・お問い合わせ先と配信停止のリンクは最後に付きます）",
    "notices.fields": "差し込み: {fields}", "notices.save": "保存", "notices.saved": "保存しました。",
    "notices.cannotSend": "このサーバーはまだメールを送れません（--smtp-url、--smtp-from、--public-url が必要です）。",
    "notices.noDays": "この7日間のお知らせはありません。", "notices.day": "日付",
    "settings.othersChannel": "ほかのメンバーの通知先", "signin.title": "サインイン", "signin.name": "名前", "signin.password": "パスワード", "signin.submit": "サインイン",
    "signin.useKey": "API キーを使う", "signin.wrong": "名前かパスワードが違います。",
    "signin.wait": "試した回数が多すぎます。少し待ってからもう一度お試しください。",
    "join.title": "リストに参加", "join.explain": "招待されています。名前とパスワード（8文字以上）を決めてください。アカウントがある場合はそのパスワードを。",
    "join.display": "ほかのメンバーに見える名前（任意）", "join.password": "パスワード", "join.submit": "参加する",
    "people.title": "メンバー", "people.me": "{name}（{list}の{role}）としてサインインしています。", "people.signOut": "サインアウト",
    "people.signOutEverywhere": "すべての端末でサインアウト", "people.switch": "あなたのリスト",
    "people.remove": "外す", "people.removeConfirm": "{name}さんをリストから外しますか？ セッションとキーはすぐに無効になります。",
    "people.invite": "招待リンクを作る", "people.inviteAs": "招待する人の役割",
    "people.link": "招待リンク", "people.copy": "コピー",
    "people.linkMade": "招待する人にこのリンクを送ってください。{until}まで、1回だけ使えます。",
    "people.audit": "操作の記録", "people.auditNone": "まだ記録はありません。", "people.auditCsv": "すべての記録をCSVで",
    "people.when": "日時", "people.who": "だれが", "people.what": "操作", "people.detail": "内容",
    "role.admin": "管理者", "role.staff": "スタッフ", "role.viewer": "閲覧のみ", "people.members": "メンバー一覧",
    "role.admin.may": "メンバーの招待と削除、リストの設定と通知先の変更、記録の閲覧まで、すべてできます。",
    "role.staff.may": "荷物の追加と削除、自分の通知の設定ができます。リストの設定とメンバーの管理はできません。",
    "role.viewer.may": "荷物と今の状況を見られます。変更はできません。",
    "people.signedIn": "あなたとこのリスト", "people.pageLink": "メンバーと招待 →",
    "summary.preview": "今朝のまとめを見る", "summary.nothing": "今朝は知らせる荷物がありません（まとめは送られません）。",
    "people.nobody": "サインインすると、このリストのメンバーが表示されます（アカウントのないサーバーにはメンバーはいません）。",
    "passkey.title": "あなたのパスキー", "passkey.add": "この端末でパスキーを作る", "passkey.added": "パスキーを作りました。次回からパスキーでサインインできます。",
    "passkey.used": "最後の利用 {at}", "passkey.unused": "まだ使っていません", "passkey.signIn": "パスキーでサインイン",
    "passkey.unavailable": "このブラウザーはパスキーに対応していません。名前とパスワードでサインインしてください。",
    "passkey.cancelled": "パスキーは使われませんでした（キャンセルまたは時間切れ）。", "passkey.exists": "この端末にはあなたのパスキーがすでにあります。",
    "passkey.failed": "この端末ではパスキーを使えませんでした。", "audit.passkey_added": "パスキーの作成", "audit.passkey_removed": "パスキーの削除",
    "audit.added": "追加", "audit.removed": "削除", "audit.edited": "編集", "audit.imported": "取り込み",
    "audit.exported": "書き出し", "audit.settings": "設定", "audit.channel_added": "通知先の追加",
    "audit.channel_removed": "通知先の削除", "audit.invited": "招待", "audit.joined": "参加",
    "audit.member_removed": "メンバーを外した", "audit.key_made": "キーの作成", "audit.key_revoked": "キーの無効化",
  },
};

let current = initialLanguage();

function initialLanguage() {
  let chosen = null;
  try { chosen = localStorage.getItem("kuroneko.lang"); } catch (e) { /* no storage */ }
  if (chosen === "ja" || chosen === "en") return chosen;
  const preferred = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of preferred) {
    if (/^ja\b/i.test(tag)) return "ja";
    if (/^en\b/i.test(tag)) return "en";
  }
  return "en";
}

export function language() { return current; }

export function setLanguage(lang) {
  current = lang === "ja" ? "ja" : "en";
  try { localStorage.setItem("kuroneko.lang", current); } catch (e) { /* no storage */ }
  document.documentElement.lang = current;
}

/** The text for a key, with `{name}` filled from `values`. */
export function t(key, values = {}) {
  const text = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/**
 * A server's refusal in the page's language: by the problem's stable `reason` where the page has words for
 * it, else by its HTTP status; the server's own words are kept where the page is English.
 */
export function refusal(status, detail, reason = "") {
  const values = { detail: detail || `HTTP ${status}` };
  if (reason && STRINGS.en[`reason.${reason}`]) return t(`reason.${reason}`, values);
  const key = status >= 500 ? "refusal.5xx" : [400, 404, 409, 413, 429].includes(status) ? `refusal.${status}` : "refusal.400";
  return t(key, values);
}

/** A status's label in the page's language (Yamato's Japanese words, or their English from the server). */
export function statusLabel(status) {
  if (!status) return "";
  return current === "ja" ? status.label : status.label_en || status.label;
}

const TOKYO = "Asia/Tokyo";

const formatters = new Map();

/** An Intl formatter for the current language, made once (making one costs more than using it). */
function formatter(kind, options) {
  const key = `${current}:${kind}`;
  if (!formatters.has(key)) {
    const locale = current === "ja" ? "ja-JP" : "en-GB";
    formatters.set(key, kind === "relative" ? new Intl.RelativeTimeFormat(current, options)
      : new Intl.DateTimeFormat(locale, options));
  }
  return formatters.get(key);
}

/** A time as month, day, hour and minute in Japan time, where Yamato's times are. */
export function formatTime(iso) {
  if (!iso) return "";
  return formatter("time", {
    timeZone: TOKYO, month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
  }).format(new Date(iso));
}

/** A calendar date (YYYY-MM-DD) with its weekday. */
export function formatDate(date) {
  const [year, month, day] = date.split("-").map(Number);
  return formatter("date", { timeZone: "UTC", month: "short", day: "numeric", weekday: "short" })
    .format(new Date(Date.UTC(year, month - 1, day)));
}

/** “3 minutes ago”, from an ISO time. */
export function relativeTime(iso, now = Date.now()) {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const format = formatter("relative", { numeric: "auto" });
  const steps = [["second", 60], ["minute", 60], ["hour", 24], ["day", 365]];
  let value = seconds;
  for (const [unit, size] of steps) {
    if (Math.abs(value) < size) return format.format(value, unit);
    value = Math.round(value / size);
  }
  return format.format(value, "year");
}

/** Fills every element marked `data-i18n` in the page's fixed parts. */
export function translateStatic(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
}
