# expect: CWE-352 (a money transfer view is exempted from Django's CSRF check)
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt


@csrf_exempt
def transfer(request):
    amount = int(request.POST["amount"])
    return JsonResponse({"sent": amount})
