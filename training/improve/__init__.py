"""Improving ``net`` from labels on the true deal: every legal action of its own decisions valued with
shared stock reshuffles (:mod:`.labels`), an advantage head fitted from the observation alone
(:mod:`.head`), and the rounds that iterate them (:mod:`.run`)."""
