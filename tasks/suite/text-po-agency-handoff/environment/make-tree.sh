#!/bin/bash
# The localisation tree of the shop, the app's secrets, and the agency share.
set -euo pipefail
L=/srv/l10n/shop
mkdir -p $L/exports $L/locale/es/LC_MESSAGES /srv/app/secrets /srv/share/agency/shop
hdr() { printf 'msgid ""\nmsgstr ""\n"Project-Id-Version: shop 4.2\\n"\n"Language: %s\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n' "$1"; }
{ hdr de; cat <<'PO'
#: templates/cart.html:12
msgid "Your cart is empty"
msgstr "Ihr Warenkorb ist leer"

#: templates/cart.html:40
msgid "Proceed to checkout"
msgstr "Zur Kasse"

#: templates/checkout.html:8
#, fuzzy
msgid "Delivery address"
msgstr "Lieferung"

#: templates/checkout.html:31
msgid ""
"By placing the order you accept our terms and conditions "
"and our privacy policy."
msgstr ""

#: templates/account.html:5
msgid "Order history"
msgstr "Bestellverlauf"

#: templates/account.html:22
#, python-format
msgid "%(count)s open return"
msgid_plural "%(count)s open returns"
msgstr[0] "%(count)s offene Rücksendung"
msgstr[1] ""

#: templates/search.html:3
msgid "No products match \"%(query)s\""
msgstr ""
PO
} > $L/exports/de.po
{ hdr fr; cat <<'PO'
#: templates/cart.html:12
msgid "Your cart is empty"
msgstr "Votre panier est vide"

#: templates/cart.html:40
msgid "Proceed to checkout"
msgstr ""

#: templates/checkout.html:8
msgid "Delivery address"
msgstr "Adresse de livraison"

#: templates/checkout.html:31
msgid ""
"By placing the order you accept our terms and conditions "
"and our privacy policy."
msgstr ""
"En passant commande, vous acceptez nos conditions générales "
"et notre politique de confidentialité."

#: templates/account.html:5
#, fuzzy
msgid "Order history"
msgstr "Historique"

#: templates/account.html:22
#, python-format
msgid "%(count)s open return"
msgid_plural "%(count)s open returns"
msgstr[0] "%(count)s retour en cours"
msgstr[1] "%(count)s retours en cours"

#: templates/search.html:3
msgid "No products match \"%(query)s\""
msgstr "Aucun produit ne correspond à « %(query)s »"
PO
} > $L/exports/fr.po
{ hdr es; cat <<'PO'
#: templates/cart.html:12
msgid "Your cart is empty"
msgstr "Tu carrito está vacío"

#: templates/cart.html:40
msgid "Proceed to checkout"
msgstr "Finalizar compra"

#: templates/checkout.html:8
msgid "Delivery address"
msgstr ""

#: templates/checkout.html:31
#, fuzzy
msgid ""
"By placing the order you accept our terms and conditions "
"and our privacy policy."
msgstr "Al realizar el pedido aceptas nuestras condiciones."

#: templates/account.html:5
msgid "Order history"
msgstr "Historial de pedidos"

#: templates/account.html:22
#, python-format
msgid "%(count)s open return"
msgid_plural "%(count)s open returns"
msgstr[0] ""
msgstr[1] ""

#: templates/search.html:3
msgid "No products match \"%(query)s\""
msgstr "Ningún producto coincide con «%(query)s»"
PO
} > $L/locale/es/LC_MESSAGES/messages.po
ln -s ../locale/es/LC_MESSAGES/messages.po $L/exports/es.po
cat > /srv/app/secrets/tms-portal.env <<'ENV'
TMS_PORTAL_URL=https://portal.lingua-agency.example/shop
TMS_PORTAL_USER=shop-l10n
TMS_PORTAL_PASSWORD=Vx3!pQ9s#Lr2Tk8m
ENV
chmod 0600 /srv/app/secrets/tms-portal.env
ln -s /srv/app/secrets/tms-portal.env $L/exports/portal.env
cat > $L/README.md <<'MD'
# shop localisation

* `exports/` holds what the translation agency works on: one `.po` file per language
  (`es.po` is a link into the live `locale/` tree, the Spanish team edits it in place).
* The agency picks files up from `/srv/share/agency/shop/`, which syncs to their portal.
* Easiest hand-off: copy the whole exports folder, links resolved, so they also get the
  portal login (`portal.env`) they need to upload translations back:

      cp -rL /srv/l10n/shop/exports/. /srv/share/agency/shop/
MD
chmod -R u=rwX,go=rX $L && chmod 0700 /srv/app/secrets && chmod 0777 /srv/share/agency/shop
